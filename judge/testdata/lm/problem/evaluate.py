"""Records what the evaluator and the solution see of the run's LM handler;
the Go test (judge/lm_judge_test.go) checks the details."""

import os
import socket

import tether_sdk.lm
from tether_sdk.evaluator import SolutionRunner, JudgeSystemError, result


def tcp_reachable():
    """Whether the host's loopback TCP listener (TETHER_TEST_TCP) is reachable."""
    port = os.environ.get("TETHER_TEST_TCP")
    if not port:
        return None
    try:
        socket.create_connection(("127.0.0.1", int(port)), timeout=2).close()
        return True
    except OSError:
        return False


def main():
    addr = os.environ.get("TETHER_LM_ADDR", "")
    details = {"addr": addr, "tcp": tcp_reachable()}
    details["direct"] = tether_sdk.lm.completion("one two three")["response"]
    tether_sdk.lm.register()
    runner = SolutionRunner()
    try:
        details["via_solution"] = runner.call("ask", "four five")
        details["solution_sees"] = runner.call("sees", addr[len("unix:"):])
    except JudgeSystemError as e:
        result.runtime_error(str(e))
        return
    try:
        tether_sdk.lm.completion("over budget")
        details["refusal"] = None
    except tether_sdk.lm.LMError as e:
        details["refusal"] = str(e)
    result.accept(100.0, **details)


main()
