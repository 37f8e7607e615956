"""The evaluator: trusted. It calls the solution's add(a, b) on each case and
prints the verdict. Edit CASES, the checks and the messages; docs/problem.md
describes the folder and docs/protocol/judge.md what happens underneath."""

from tether_sdk.evaluator import NotFoundError, SolutionRunner, SolutionTimeoutError, JudgeSystemError, result

CASES = [(1, 2), (-5, 5), (0, 0), (123456789, 987654321), (2**70, 1)]


def main():
    runner = SolutionRunner()
    for passed, (a, b) in enumerate(CASES):
        try:
            got = runner.call("add", a, b)
        except NotFoundError:
            result.wrong_answer("the solution has no function add")
            return
        except SolutionTimeoutError:
            result.time_limit_exceeded("add(%d, %d) timed out" % (a, b))
            return
        except JudgeSystemError as e:  # the solution raised, or its host failed
            result.runtime_error("add(%d, %d) failed: %s" % (a, b, e))
            return
        if got != a + b:
            # score in percent; the result holds hundredths of a point
            result.wrong_answer("add(%d, %d) returned %r" % (a, b, got), score=100.0 * passed / len(CASES))
            return
    print("all %d cases passed" % len(CASES))
    result.accept(100.0)


main()
