"""A problem written against Neuro OJ's evaluator SDK names only.

It prints its own result line with json.dumps instead of using the SDK's
result helpers; tether must pass status and score through unchanged.
"""

import json

from noj_evaluator_sdk.runner import SolutionRunner, SolutionTimeoutError

CASES = [("hello world", "world hello", 2500), ("a b c", "c b a", 2500),
         ("one", "one", 2500), ("  spaced   out ", "out spaced", 2000)]


def main():
    runner = SolutionRunner()
    score, verdicts = 0, []
    for s, want, weight in CASES:
        try:
            got = runner.call("solve", s)
        except SolutionTimeoutError:
            got = None
        ok = got == want
        verdicts.append(ok)
        if ok:
            score += weight
    print("cases:", verdicts)
    status = "Accepted" if all(verdicts) else ("PartiallyCorrect" if score else "WrongAnswer")
    print("---RESULT---")
    print(json.dumps({"status": status, "score": score, "details": {"cases": verdicts}}))


if __name__ == "__main__":
    main()
