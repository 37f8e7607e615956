"""A + B: call the solution's add(a, b) on a few cases, including big ints.

add is declared in problem.json, so solution.add checks its arguments and
its result: a result that is not an integer raises ResultTypeError, which,
uncaught, is WrongAnswer ("add returned a string, expected an integer")."""

from tether_sdk.evaluator import (
    NotFoundError,
    RejectedError,
    SolutionTimeoutError,
    SystemError,
    result,
    solution,
)

CASES = [(1, 2), (-5, 5), (0, 0), (123456789, 987654321), (2**70, 2**70), (-(10**30), 1)]


def main():
    passed = 0
    for a, b in CASES:
        try:
            got = solution.add(a, b)
        except NotFoundError as e:
            result.wrong_answer("add is missing: %s" % e)
            return
        except (SystemError, RejectedError) as e:  # the solution raised or returned garbage
            result.runtime_error("add(%d, %d) failed: %s" % (a, b, e))
            return
        except SolutionTimeoutError:
            result.time_limit_exceeded("add(%d, %d) timed out" % (a, b))
            return
        if got != a + b or type(got) is not int:
            result.wrong_answer("add(%d, %d) returned %r, expected %d" % (a, b, got, a + b),
                                score=100.0 * passed / len(CASES), passed=passed)
            return
        passed += 1
    print("all %d cases passed" % passed)
    result.accept(100.0, passed=passed)


main()
