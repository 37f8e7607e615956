"""Calls the solution's run() once. A hostile solution tries something and
returns "blocked" when the sandbox stopped it (Accepted) or anything else
when it got through (WrongAnswer)."""

import os

from tether_sdk.evaluator import SolutionRunner, SolutionTimeoutError, result

# On an emulated machine the test stretches the call's time (TimeScale).
CALL_TIMEOUT_MS = int(3000 * float(os.environ.get("TETHER_TEST_TIME_SCALE", "1")))

# The data is there for the evaluator: a solution that cannot read it is
# stopped by its sandbox, not by a missing file.
with open("secret.txt") as f:
    assert f.read().startswith("hidden")


def main():
    runner = SolutionRunner()
    try:
        got = runner.call("run", timeout_ms=CALL_TIMEOUT_MS)
    except SolutionTimeoutError:
        result.time_limit_exceeded("run() timed out")
        return
    except Exception as e:  # the solution died or broke the protocol
        result.runtime_error("run() failed: %s: %s" % (type(e).__name__, e))
        return
    if got == "blocked":
        result.accept(outcome=got)
    else:
        result.wrong_answer(outcome=str(got)[:500])


main()
