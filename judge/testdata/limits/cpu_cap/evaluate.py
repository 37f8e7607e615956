"""One call with a deadline far beyond the solution's 1 s CPU cap: the cap,
not the call timeout, must stop a busy solution."""

from tether_sdk.evaluator import SolutionRunner, SolutionTimeoutError, result

runner = SolutionRunner()
try:
    got = runner.call("run", timeout_ms=20000)
except SolutionTimeoutError:
    result.time_limit_exceeded("run() timed out")
except Exception as e:  # the solution was killed
    result.runtime_error("run() failed: %s: %s" % (type(e).__name__, e))
else:
    result.accept(outcome=str(got))
