"""Calls the solution's run() once. A hostile solution tries something and
returns "blocked" when the sandbox stopped it (Accepted) or anything else
when it got through (WrongAnswer)."""

from tether_sdk.evaluator import SolutionRunner, SolutionTimeoutError, result

# The data is there for the evaluator: a solution that cannot read it is
# stopped by its sandbox, not by a missing file.
with open("secret.txt") as f:
    assert f.read().startswith("hidden")


def main():
    runner = SolutionRunner()
    try:
        got = runner.call("run", timeout_ms=3000)
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
