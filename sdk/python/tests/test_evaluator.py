"""The evaluator SDK against a fake judge on pipes (the test plays judge and solution)."""

import json
import re

import pytest


HEX32 = re.compile(r"^[0-9a-f]{32}$")


@pytest.fixture
def evaluator(peers):
    return peers.evaluator


def expect_call(peer, fn):
    f = peer.frame()
    assert f["type"] == "call" and f["fn"] == fn, f
    assert HEX32.match(f["id"]), f
    return f


def test_call_returns_the_value(evaluator):
    p = evaluator("""
        from tether_sdk.evaluator import SolutionRunner
        r = SolutionRunner()
        print("got", repr(r.call("add", 1, b"\\x00", {"k": [1.5]}, timeout_ms=250)))
    """)
    f = expect_call(p, "add")
    assert f["args"] == [1, {"__bytes__": "AA=="}, {"k": [1.5]}]
    assert f["timeout_ms"] == 250
    p.send({"type": "result", "id": f["id"], "value": {"b": {"__bytes__": "aGk="}}})
    assert p.text() == "got {'b': b'hi'}"
    assert p.wait() == 0


def test_timeout_ms_is_left_out_by_default(evaluator):
    p = evaluator("""
        from tether_sdk.evaluator import SolutionRunner
        SolutionRunner().call("f")
    """)
    f = expect_call(p, "f")
    assert "timeout_ms" not in f and f["args"] == []
    p.send({"type": "result", "id": f["id"], "value": None})
    assert p.wait() == 0


def test_rejected_arguments_send_nothing(evaluator):
    p = evaluator("""
        from tether_sdk.evaluator import SolutionRunner, RejectedError
        r = SolutionRunner()
        for bad in [({1},), (1, {"x": float("nan")}), ((1, 2),), ({1: 2},), (object(),), ("x" * (2 << 20),)]:
            try:
                r.call("f", *bad)
            except RejectedError as e:
                print("rejected", e.path, "|", e)
        r.call("after")
    """)
    assert p.text() == "rejected args[0] | args[0]: set is not transferable"
    assert p.text() == 'rejected args[1]["x"] | args[1]["x"]: NaN is not transferable'
    assert p.text() == "rejected args[0] | args[0]: tuple is not transferable"
    assert p.text() == "rejected args[0] | args[0]: non-string key 1 (int)"
    assert p.text() == "rejected args[0] | args[0]: object is not transferable"
    line = p.text()
    assert re.fullmatch(r"rejected None \| frame size \d+ > 1048576", line), line
    f = expect_call(p, "after")  # the first frame sent at all
    p.send({"type": "result", "id": f["id"], "value": 1})
    assert p.wait() == 0


ERRORS = """
import builtins
from tether_sdk.evaluator import (SolutionRunner, NotFoundError, RejectedError,
    SolutionTimeoutError, JudgeSystemError, JudgeConnectionError, TetherError)
r = SolutionRunner()
while True:
    try:
        r.call("f")
    except JudgeConnectionError:
        break
    except TetherError as e:
        print(json.dumps([type(e).__name__, str(e), e.code, isinstance(e, builtins.SystemError)]))
"""


@pytest.mark.parametrize(
    "frame, want",
    [
        ({"code": "NotFound", "message": "function 'f' not registered"},
         ["NotFoundError", "function 'f' not registered", "NotFound", False]),
        ({"code": "Rejected", "message": "value: set is not transferable"},
         ["RejectedError", "value: set is not transferable", "Rejected", False]),
        ({"code": "CallTimeout", "message": "call timeout"},
         ["SolutionTimeoutError", "call timeout", "CallTimeout", False]),
        ({"code": "Exception", "message": "boom", "trace": "Traceback (most recent call last):\nValueError: boom"},
         ["JudgeSystemError", "boom\nTraceback (most recent call last):\nValueError: boom", "Exception", True]),
        ({"code": "SystemError", "message": "solution restarted after timeout"},
         ["JudgeSystemError", "SystemError: solution restarted after timeout", "SystemError", True]),
        ({"code": "Weird", "message": "x"}, ["JudgeSystemError", "Weird: x", "Weird", True]),
    ],
)
def test_error_codes_map_to_classes(evaluator, frame, want):
    p = evaluator("import json\n" + ERRORS)
    f = expect_call(p, "f")
    p.send(dict(frame, type="error", id=f["id"]))
    assert json.loads(p.text()) == want
    expect_call(p, "f")
    p.close_stdin()
    assert p.wait() == 0


def test_unknown_and_forged_responses_are_ignored(evaluator):
    p = evaluator("""
        from tether_sdk.evaluator import SolutionRunner
        print(SolutionRunner().call("f"))
    """)
    f = expect_call(p, "f")
    p.send({"type": "result", "id": "someone-else", "value": "forged"})
    p.send("plain text")
    p.send({"type": "result", "value": "no id"})
    p.send({"type": "log", "stream": "stdout", "data": "solution said"})
    p.send({"type": "result", "id": f["id"], "value": "real"})
    assert p.text() == "real"


@pytest.mark.parametrize(
    "value, reason",
    [
        ("NaN", "NaN"),  # outside the transferable values
        ("[" * 600 + "]" * 600, "nesting too deep"),  # over the codec's limit, within json's
        ("[" * 200000 + "]" * 200000, "nesting too deep"),  # over any recursive parser's limit
        ("[" + "7" * 4301 + "]", "4301 digits"),  # over the digit limit
    ],
    ids=["nan", "deep", "deeper-than-json", "long-integer"],
)
def test_undecodable_result_is_rejected_at_once(evaluator, value, reason):
    p = evaluator("""
        from tether_sdk.evaluator import SolutionRunner, RejectedError
        try:
            SolutionRunner().call("f")
        except RejectedError as e:
            print("rejected:", e)
    """)
    f = expect_call(p, "f")
    p.send('{"type":"result","id":"%s","value":%s}' % (f["id"], value))
    line = p.text()
    assert line.startswith("rejected: undecodable result: ") and reason in line, line
    assert p.wait() == 0


def test_result_marker_carries_the_run_nonce(evaluator):
    p = evaluator("""
        from tether_sdk.evaluator import result
        result.wrong_answer("no")
    """, env={"TETHER_RESULT_NONCE": "5eed"})
    assert p.text() == "---RESULT--- 5eed"
    assert json.loads(p.text())["status"] == "WrongAnswer"


def test_concurrent_calls_get_their_own_answers(evaluator):
    p = evaluator("""
        import threading
        from tether_sdk.evaluator import SolutionRunner
        r = SolutionRunner()
        out = {}
        def worker(i):
            out[i] = r.call("echo", i)
        ts = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
        for t in ts: t.start()
        for t in ts: t.join()
        print(sorted(out.items()) == [(i, i * 10) for i in range(8)])
    """)
    calls = [expect_call(p, "echo") for _ in range(8)]
    for f in reversed(calls):  # answer out of order
        p.send({"type": "result", "id": f["id"], "value": f["args"][0] * 10})
    assert p.text() == "True"


def test_stdin_eof_fails_pending_and_later_calls(evaluator):
    p = evaluator("""
        from tether_sdk.evaluator import SolutionRunner, JudgeConnectionError
        r = SolutionRunner()
        for _ in range(2):
            try:
                r.call("f")
            except JudgeConnectionError as e:
                print("JudgeConnectionError:", e, isinstance(e, OSError))
    """)
    expect_call(p, "f")
    p.close_stdin()
    assert p.text() == "JudgeConnectionError: channel to the judge closed (stdin EOF) True"
    assert p.text() == "JudgeConnectionError: channel to the judge closed (stdin EOF) True"
    assert p.wait() == 0


def test_close_fails_pending_calls(evaluator):
    p = evaluator("""
        from tether_sdk.evaluator import SolutionRunner, JudgeConnectionError, register_capability
        r = SolutionRunner()
        register_capability("close", lambda: r.close())  # the judge's side says when
        try:
            r.call("slow")
        except JudgeConnectionError as e:
            print("pending:", e, flush=True)
        r.close()
        try:
            r.call("again")
        except JudgeConnectionError as e:
            print("later:", e)
    """)
    assert p.frame()["type"] == "cap_reg"
    expect_call(p, "slow")
    p.send({"type": "capability", "id": "k1", "name": "close", "args": []})
    got = []
    while True:
        line = p.line()
        if line is None:
            break
        got.append(line)
    # The capability's answer comes from a worker thread: anywhere, or not at
    # all when the evaluator exits first (a worker never writes after exit).
    answer = b'{"type":"result","id":"k1","value":null}'
    assert [x for x in got if x != answer] == [b"pending: runner closed", b"later: runner is closed"]
    assert p.wait() == 0


def test_partial_print_never_splits_a_frame(evaluator):
    p = evaluator("""
        import json
        from tether_sdk.evaluator import SolutionRunner
        r = SolutionRunner()
        print("abc", end="", flush=True)
        r.call("f")
        print("def")
        print("tail without newline", end="")
    """)
    f = expect_call(p, "f")  # the frame line is clean, "abc" waits
    p.send({"type": "result", "id": f["id"], "value": 1})
    assert p.text() == "abcdef"
    assert p.text() == "tail without newline"  # written at exit
    assert p.line() is None


def test_result_is_written_once(evaluator):
    p = evaluator("""
        from tether_sdk.evaluator import result
        result.accept(87.654, note="fine", n=[1, 2])
        try:
            result.wrong_answer("again")
        except result.ResultAlreadyWritten as e:
            import sys
            print("second:", e, file=sys.stderr)
    """)
    assert p.text() == "---RESULT---"
    assert json.loads(p.text()) == {"status": "Accepted", "score": 8765, "details": {"note": "fine", "n": [1, 2]}}
    assert p.line() is None
    p.wait()
    assert "second: the result was already written" in p.stderr


@pytest.mark.parametrize(
    "call, want",
    [
        ("result.accept()", {"status": "Accepted", "score": 10000, "details": {}}),
        ("result.wrong_answer()", {"status": "WrongAnswer", "score": 0, "details": {}}),
        ("result.wrong_answer('off by one', score=25)", {"status": "WrongAnswer", "score": 2500, "details": {"message": "off by one"}}),
        ("result.wrong_answer(12.5)", {"status": "WrongAnswer", "score": 1250, "details": {}}),
        ("result.partially_correct(40)", {"status": "PartiallyCorrect", "score": 4000, "details": {}}),
        ("result.runtime_error('crashed')", {"status": "RuntimeError", "score": 0, "details": {"message": "crashed"}}),
        ("result.system_error('broken')", {"status": "SystemError", "score": 0, "details": {"message": "broken"}}),
    ],
)
def test_result_functions(evaluator, call, want):
    p = evaluator("from tether_sdk.evaluator import result\n" + call + "\n")
    assert p.text() == "---RESULT---"
    assert json.loads(p.text()) == want


def test_bad_result_raises_before_writing(evaluator):
    p = evaluator("""
        from tether_sdk.evaluator import result
        for bad in [lambda: result.accept(float("nan")), lambda: result.accept(x=float("inf")),
                    lambda: result.write("Great job!"), lambda: result.write(""), lambda: result.write("A" * 65)]:
            try:
                bad()
            except ValueError as e:
                print("refused")
        result.accept(50)
    """)
    assert [p.text() for _ in range(5)] == ["refused"] * 5
    assert p.text() == "---RESULT---"
    assert json.loads(p.text())["score"] == 5000


def test_an_evaluators_own_status_is_written(evaluator):
    # The judge passes a plain identifier through (docs/result.md), as
    # Neuro OJ's judge does; it is never Accepted.
    p = evaluator("""
        from tether_sdk.evaluator import result
        result.write("PartiallyAccepted", 40, subtasks=[1, 0])
    """)
    assert p.text() == "---RESULT---"
    assert json.loads(p.text()) == {"status": "PartiallyAccepted", "score": 4000, "details": {"subtasks": [1, 0]}}


def test_configure_logging_moves_print_to_stderr(evaluator):
    p = evaluator("""
        import logging
        from tether_sdk.evaluator import SolutionRunner, configure_logging, result
        configure_logging()
        print("to stderr")
        logging.getLogger("x").info("logged")
        r = SolutionRunner()
        r.call("f")
        result.accept()
    """)
    f = expect_call(p, "f")
    p.send({"type": "result", "id": f["id"], "value": 1})
    assert p.text() == "---RESULT---"
    json.loads(p.text())
    assert p.line() is None
    p.wait()
    assert "to stderr" in p.stderr and "logged" in p.stderr


CAPABILITY = """
import threading
from tether_sdk.evaluator import SolutionRunner, register_capability
released = threading.Event()

def llm(prompt, data=b""):
    return {"echo": prompt, "n": len(data)}

def slow():
    released.wait(10)
    return "slow done" if released.is_set() else "reader was blocked"

def broken(n):
    raise ValueError("x" * n)

def bad_value():
    return {1, 2}

register_capability("llm", llm, timeout_ms=1500)
register_capability("slow", slow)
register_capability("broken", broken)
register_capability("bad_value", bad_value)
r = SolutionRunner()
print("call:", r.call("f"), flush=True)
released.set()
print("call:", r.call("g"), flush=True)
"""


def test_capabilities(evaluator):
    p = evaluator(CAPABILITY)
    assert p.frame() == {"type": "cap_reg", "name": "llm", "timeout_ms": 1500}
    assert p.frame() == {"type": "cap_reg", "name": "slow"}
    assert p.frame() == {"type": "cap_reg", "name": "broken"}
    assert p.frame() == {"type": "cap_reg", "name": "bad_value"}
    f = expect_call(p, "f")
    # A slow handler must not block the reader: the call's answer still arrives.
    p.send({"type": "capability", "id": "s1", "name": "slow", "args": []})
    p.send({"type": "capability", "id": "c1", "name": "llm", "args": ["hi", {"__bytes__": "AAA="}]})
    assert p.frame() == {"type": "result", "id": "c1", "value": {"echo": "hi", "n": 2}}
    p.send({"type": "result", "id": f["id"], "value": 1})
    assert p.text() == "call: 1"
    # The released handler answers and the next call goes out, in either order.
    two = sorted([p.frame(), p.frame()], key=lambda fr: fr["type"])
    assert two[1] == {"type": "result", "id": "s1", "value": "slow done"}
    g = two[0]
    assert g["type"] == "call" and g["fn"] == "g"

    p.send({"type": "capability", "id": "c2", "name": "nope", "args": []})
    assert p.frame() == {"type": "error", "id": "c2", "code": "NotFound", "message": "capability 'nope' not registered"}
    p.send({"type": "capability", "id": "c3", "name": "broken", "args": [5000]})
    e = p.frame()
    assert e["code"] == "Exception" and e["message"] == "x" * 1024  # cut at exactly 1024 characters
    assert e["trace"].startswith("Traceback (most recent call last):\n")
    assert e["trace"].endswith("ValueError: " + "x" * 5000) or "ValueError: x" in e["trace"]
    assert "evaluate.py" in e["trace"] and "tether_sdk" not in e["trace"]
    p.send({"type": "capability", "id": "c4", "name": "bad_value", "args": []})
    assert p.frame() == {"type": "error", "id": "c4", "code": "Rejected", "message": "value: set is not transferable"}
    p.send('{"type":"capability","id":"c5","name":"llm","args":[NaN]}')
    e = p.frame()
    assert e["id"] == "c5" and e["code"] == "Rejected"
    p.send({"type": "result", "id": g["id"], "value": 2})
    assert p.text() == "call: 2"
    assert p.wait() == 0

