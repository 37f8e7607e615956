"""The solution host run on its own, as Neuro OJ's tests and tools run it
(``python3 -m noj_solution_sdk.host --entry FILE``): ready even when the entry
fails to load, a shutdown frame, SIGTERM, a name registered twice."""

import signal
import time

import pytest

from fakejudge import call

HOST = "noj_solution_sdk.host"


def test_ready_then_every_call_names_the_load_failure(peers):
    p = peers.host("import no_such_module_for_noj\n", module=HOST)  # start_host checks ready
    for i in range(2):
        f = call(p, str(i), "solve", 1, 2)
        assert f["code"] == "Exception"
        assert f["message"] == "solution import failed: ModuleNotFoundError: No module named 'no_such_module_for_noj'"


def test_a_name_registered_twice_fails_the_load(peers):
    p = peers.host("""
        from noj_solution_sdk import register

        @register
        def solve():
            return 1

        register("solve", lambda: 2)
    """, module="noj_solution_sdk")  # python3 -m noj_solution_sdk is the host too
    f = call(p, "1", "solve")
    assert f["code"] == "Exception"
    assert f["message"] == "solution import failed: FunctionAlreadyRegisteredError: function 'solve' already registered"


def _exits_within(p, seconds):
    start = time.monotonic()
    status = p.wait(timeout=10)
    return status, time.monotonic() - start < seconds


def test_shutdown_answers_what_is_queued_and_exits(peers):
    p = peers.host("def solve(a, b):\n    return a + b\n", module=HOST)
    assert call(p, "1", "solve", 1, 2)["value"] == 3
    p.send({"type": "call", "id": "2", "fn": "solve", "args": [2, 3]})
    p.send({"type": "shutdown"})
    assert p.frame() == {"type": "result", "id": "2", "value": 5}
    assert _exits_within(p, 1.0) == (0, True)


def test_shutdown_exits_within_a_second_while_a_call_runs(peers):
    p = peers.host("""
        from noj_solution_sdk import call_capability

        def forever():
            while True:
                pass

        def ask():
            return call_capability("never_answered")
    """, module=HOST)
    p.send({"type": "call", "id": "1", "fn": "forever", "args": []})
    p.send({"type": "shutdown"})
    assert _exits_within(p, 1.0) == (0, True)


@pytest.mark.parametrize("pending", ["idle", "capability", "call"])
def test_sigterm_exits_0_whatever_is_pending(peers, pending):
    p = peers.host("""
        from noj_solution_sdk import call_capability

        def ask():
            return call_capability("never_answered")

        def forever():
            while True:
                pass
    """, module=HOST)
    if pending == "capability":
        p.send({"type": "call", "id": "1", "fn": "ask", "args": []})
        f = p.frame()
        assert f["type"] == "capability" and f["name"] == "never_answered"
    elif pending == "call":
        p.send({"type": "call", "id": "1", "fn": "forever", "args": []})
        p.send({"type": "call", "id": "2", "fn": "ask", "args": []})  # queued behind it
    p.proc.send_signal(signal.SIGTERM)
    assert _exits_within(p, 1.0) == (0, True)
