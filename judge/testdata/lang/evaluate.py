"""add(a, b) on a few small cases (C++ solutions take long long).

The solution's function is add, or the one named by the first argument
(python3 evaluate.py add_wrong: see verdicts/solution.py)."""

import sys

from tether_sdk.evaluator import RejectedError, SolutionRunner, SolutionTimeoutError, SystemError, result

fn = sys.argv[1] if len(sys.argv) > 1 else "add"
runner = SolutionRunner()
for a, b in [(1, 2), (-5, 5), (123456789, 987654321)]:
    try:
        got = runner.call(fn, a, b)
    except (SystemError, RejectedError) as e:
        result.runtime_error("add(%d, %d) failed: %s" % (a, b, e))
        raise SystemExit(0)
    except SolutionTimeoutError:
        result.time_limit_exceeded("add(%d, %d) timed out" % (a, b))
        raise SystemExit(0)
    if got != a + b:
        result.wrong_answer("add(%d, %d) returned %r" % (a, b, got))
        raise SystemExit(0)
print("all cases passed")
result.accept(100.0)
