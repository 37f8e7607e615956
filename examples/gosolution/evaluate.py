"""A + B for a solution in any language: call add(a, b) on a few 64-bit cases."""

from tether_sdk.evaluator import NotFoundError, RejectedError, SolutionRunner, JudgeSystemError, result

CASES = [(1, 2), (-5, 5), (0, 0), (123456789, 987654321), (2**40, -(2**41))]


def main():
    runner = SolutionRunner()
    for a, b in CASES:
        try:
            got = runner.call("add", a, b)
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
