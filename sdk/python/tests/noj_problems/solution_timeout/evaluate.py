from noj_evaluator_sdk import result
from noj_evaluator_sdk.runner import SolutionRunner, SolutionTimeoutError

CASES = [10, 1000, 10**12, 7]


def main():
    runner = SolutionRunner()
    for i, n in enumerate(CASES, 1):
        try:
            got = runner.call("count", n)
        except SolutionTimeoutError:
            result.wrong_answer(score=(i - 1) * 100.0 / len(CASES), message="case %d: time limit exceeded" % i)
            return
        if got != n:
            result.wrong_answer(score=(i - 1) * 100.0 / len(CASES), message="case %d: got %r" % (i, got))
            return
    result.accept()


main()
