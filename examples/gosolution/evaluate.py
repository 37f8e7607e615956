"""A + B on 64-bit integers: call the solution's add(a, b) on a few cases.

add is declared in problem.json (add(a: int, b: int) -> int), so
solution.add checks each argument before sending it and the result when it
comes back."""

from tether_sdk.evaluator import JudgeSystemError, NotFoundError, RejectedError, result, solution

CASES = [(1, 2), (-5, 5), (0, 0), (123456789, 987654321), (2**40, -(2**41))]


def main():
    for a, b in CASES:
        try:
            got = solution.add(a, b)
        except NotFoundError as e:
            result.wrong_answer("add is missing: %s" % e)
            return
        except (JudgeSystemError, RejectedError) as e:
            result.runtime_error("add(%d, %d) failed: %s" % (a, b, e))
            return
        if got != a + b:
            result.wrong_answer("add(%d, %d) returned %r, expected %d" % (a, b, got, a + b))
            return
    print("all %d cases passed" % len(CASES))
    result.accept(100.0)


main()
