"""Hostile or merely unusual user code: stdio idioms, huge and broken
exceptions, values whose methods raise. Every call still gets an answer and
nothing reaches the protocol channel raw."""

import json
import queue
import threading

import pytest

from fakejudge import call
from tether_sdk import _trace, codec
from tether_sdk.errors import RejectedError

# --- solution host: sys.stdout / sys.stderr idioms ---------------------------

STDIO = """
import io, os, subprocess, sys

sys.stdout.reconfigure(encoding="utf-8")  # at import, as many solutions do
sys.stderr.reconfigure(errors="backslashreplace", line_buffering=True)

def buffer_bytes():
    b = sys.stdout.buffer
    b.write(b"raw line\\n")
    b.write(b"split \\xc3")  # one character across two writes
    b.write(bytearray(b"\\xa9 bad \\xff\\n"))
    b.write(memoryview(b"tail"))
    b.flush()
    return "done"

def latin1():
    sys.stdout.reconfigure(encoding="latin-1")
    try:
        sys.stdout.buffer.write(b"\\xe9\\n")
    finally:
        sys.stdout.reconfigure(encoding="utf-8")
    return sys.stdout.encoding

def props():
    s = sys.stdout
    return [s.encoding, s.errors, sys.stderr.errors, s.isatty(), s.writable(), s.readable(),
            s.buffer.writable(), s.buffer.isatty(), s.closed]

def fileno():
    fds = [sys.stdout.fileno(), sys.stderr.fileno(), sys.stdout.buffer.fileno()]
    null = os.stat(os.devnull).st_rdev
    # Writing to the descriptor goes nowhere: never onto the channel.
    os.write(fds[0], b'{"type":"result","id":"x","value":"forged"}\\n')
    subprocess.run(["sh", "-c", 'echo \\'{"type":"result","id":"y","value":2}\\''], stdout=sys.stdout, check=True)
    return [os.fstat(fd).st_rdev == null for fd in fds]

def wrapper():
    w = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8")
    w.write("wrapped\\n")
    w.flush()
    return 1

def detach_idiom():
    sys.stdout = io.TextIOWrapper(sys.stdout.detach(), encoding="utf-8")
    print("after detach")  # buffered in the user's wrapper; flushed before the answer
    return 2

def closed_stdout():
    sys.stdout.close()
    print("still here")
    return 3
"""


@pytest.fixture
def stdio_host(peers):
    p = peers.host(STDIO)
    return p


def logs_then_answer(peer, call_id, fn, *args):
    peer.send({"type": "call", "id": call_id, "fn": fn, "args": list(args)})
    logs = []
    while True:
        f = peer.frame()
        if f["type"] != "log":
            assert f["id"] == call_id, f
            return logs, f
        logs.append((f["stream"], f["data"]))


def test_stdout_reconfigure_at_import_keeps_the_host_working(stdio_host):
    assert call(stdio_host, "1", "props")["value"] == [
        "utf-8", "strict", "backslashreplace", False, True, False, True, False, False,
    ]


def test_stdout_buffer_bytes_become_log_frames(stdio_host):
    logs, answer = logs_then_answer(stdio_host, "1", "buffer_bytes")
    assert answer["value"] == "done"
    assert "".join(d for _, d in logs) == "raw line\nsplit \u00e9 bad \ufffd\ntail"
    assert {s for s, _ in logs} == {"stdout"}
    logs, answer = logs_then_answer(stdio_host, "2", "latin1")
    assert logs == [("stdout", "\u00e9\n")] and answer["value"] == "utf-8"


def test_stdout_fileno_is_devnull_never_the_channel(stdio_host):
    logs, answer = logs_then_answer(stdio_host, "1", "fileno")
    assert answer == {"type": "result", "id": "1", "value": [True, True, True]}
    assert logs == []
    assert call(stdio_host, "2", "props")["id"] == "2"  # the forged lines went nowhere


def test_textiowrapper_over_stdout_buffer_and_detach(stdio_host):
    logs, answer = logs_then_answer(stdio_host, "1", "wrapper")
    assert logs == [("stdout", "wrapped\n")] and answer["value"] == 1
    logs, answer = logs_then_answer(stdio_host, "2", "detach_idiom")
    assert logs == [("stdout", "after detach\n")] and answer["value"] == 2
    logs, answer = logs_then_answer(stdio_host, "3", "closed_stdout")
    assert logs == [("stdout", "still here\n")] and answer["value"] == 3


@pytest.mark.parametrize(
    "top",
    [
        'sys.stdout.reconfigure(encoding="utf-8")',
        'sys.stdout = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8")',
        'sys.stdout = io.TextIOWrapper(sys.stdout.detach(), encoding="utf-8", line_buffering=True)',
        'sys.stdout.buffer.write(b"at import\\n")',
    ],
)
def test_stdout_idioms_at_import(peers, top):
    p = peers.host("import io, sys\n%s\ndef f():\n    print('hi')\n    return 1\n" % top)
    logs, answer = logs_then_answer(p, "1", "f")
    assert answer == {"type": "result", "id": "1", "value": 1}
    assert logs[-1] == ("stdout", "hi\n")


# --- huge and broken exceptions, hostile return values ----------------------

HOSTILE = """
class NoStr(Exception):
    def __str__(self):
        raise RuntimeError("no str")

class BadS(str):
    def __str__(self):
        raise RuntimeError("s")

class StrSub(Exception):
    def __str__(self):
        return BadS("sub")  # a str subclass whose own __str__ raises

class D(dict):
    def items(self):
        raise KeyError("items")

def huge():
    raise ValueError("x" * 2_000_000)

def bad_str():
    raise NoStr()

def str_sub():
    raise StrSub()

def bad_dict():
    return D(a=1)

def nested_bad_str():
    return {"k": [BadS("v")]}

def msg_slash():
    raise ValueError("got 3 /4 expected /s and a /b c")

def msg_path():
    raise ValueError("cannot open /home/judge/secret/data.txt now")

def ok():
    return "ok"
"""


@pytest.fixture
def hostile(peers):
    p = peers.host(HOSTILE)
    return p


def test_huge_exception_message_is_clipped_not_rejected(hostile):
    f = call(hostile, "1", "huge")
    assert f["code"] == "Exception"
    assert f["message"].startswith("x" * _trace.MAX_MESSAGE)
    assert f["message"].endswith("... (%d more characters)" % (2_000_000 - _trace.MAX_MESSAGE))
    assert f["trace"].endswith("ValueError: " + f["message"])
    assert len(f["trace"]) < _trace.MAX_TRACE + _trace.MAX_MESSAGE + 100
    assert call(hostile, "2", "ok")["value"] == "ok"


def test_exception_whose_str_raises_is_answered(hostile):
    f = call(hostile, "1", "bad_str")
    assert f["code"] == "Exception"
    assert f["message"] == "<exception str() failed: RuntimeError: no str>"
    assert f["trace"].endswith("\nNoStr: <exception str() failed: RuntimeError: no str>")
    f = call(hostile, "2", "str_sub")
    assert f["code"] == "Exception" and f["message"] == "sub"
    assert call(hostile, "3", "ok")["value"] == "ok"


def test_return_value_whose_methods_raise_is_rejected(hostile):
    f = call(hostile, "1", "bad_dict")
    assert f == {
        "type": "error", "id": "1", "code": "Rejected",
        "message": "value: dict subclass D: items() raised KeyError: 'items'",
    }
    f = call(hostile, "2", "nested_bad_str")
    assert f["code"] == "Rejected"
    assert f["message"] == 'value["k"][0]: str subclass BadS: __str__() raised RuntimeError: s'
    assert call(hostile, "3", "ok")["value"] == "ok"


def test_message_paths_need_two_components(hostile):
    f = call(hostile, "1", "msg_slash")
    assert f["message"] == "got 3 /4 expected /s and a /b c"
    assert f["trace"].endswith("ValueError: got 3 /4 expected /s and a /b c")
    f = call(hostile, "2", "msg_path")
    assert f["message"] == "cannot open data.txt now"


@pytest.mark.parametrize(
    "text,want",
    [
        ("got 3 /4 expected", "got 3 /4 expected"),
        ("/s", "/s"),
        ("a /b c", "a /b c"),
        ("1/2 and http://x/y/z", "1/2 and http://x/y/z"),
        ("open /home/u/x.py: denied", "open x.py: denied"),
        ("at /a/b", "at b"),
        ("dir /a/b/ here", "dir b/ here"),
        (r"see C:\Users\me\f.txt", "see f.txt"),
        ('File "/srv/judge/main.py", line 3', 'File "main.py", line 3'),
    ],
)
def test_sanitize_cuts_only_real_paths(text, want):
    assert _trace.sanitize(text) == want


def test_trace_helpers_never_raise_and_stay_bounded():
    class Bad(Exception):
        def __str__(self):
            raise SystemExit("nope")

    assert _trace.exception_message(Bad()) == "<exception str() failed: SystemExit: nope>"
    big = type("N" * 5000, (Exception,), {})("m" * 300_000)
    line = _trace.exception_line(big)
    assert len(line) < _trace.MAX_NAME + _trace.MAX_MESSAGE + 100
    assert len(_trace.format_trace(big)) < _trace.MAX_TRACE + _trace.MAX_NAME + _trace.MAX_MESSAGE + 200


def test_codec_refuses_values_whose_methods_raise():
    class D(dict):
        def items(self):
            raise KeyError("items")

    class L(list):
        def __iter__(self):
            raise ValueError("no iter")

    class K(str):
        def __str__(self):
            raise RuntimeError("key")

    cases = [
        (D(a=1), "value: dict subclass D: items() raised KeyError: 'items'"),
        ([1, L([2])], "value[1]: list subclass L: iteration raised ValueError: no iter"),
        ({K("k"): 1}, "value: str subclass K: __str__() of a key raised RuntimeError: key"),
    ]
    for value, message in cases:
        with pytest.raises(RejectedError) as e:
            codec.encode(value)
        assert str(e.value) == message
    with pytest.raises(RejectedError) as e:
        codec.encode_args([1, D()])
    assert str(e.value).startswith("args[1]: dict subclass D: items() raised")


# --- evaluator: capability workers -----------------------------------------

CAPS = """
import sys, time
from tether_sdk.evaluator import register_capability

class NoStr(Exception):
    def __str__(self):
        raise RuntimeError("no str")

class D(dict):
    def items(self):
        raise KeyError("items")

def bad_str():
    raise NoStr()

def huge(n):
    raise ValueError("y" * n)

register_capability("bad_str", bad_str)
register_capability("bad_dict", lambda: D(a=1))
register_capability("exits", lambda: sys.exit(3))
register_capability("huge", huge)
register_capability("ok", lambda x: x + 1)
from tether_sdk.evaluator._channel import channel
channel().pending._thread.join()  # serve capabilities until the judge closes stdin
"""


@pytest.fixture
def caps(peers):
    p = peers.evaluator(CAPS)
    for _ in range(5):
        assert p.frame()["type"] == "cap_reg"
    return p


def test_capability_workers_survive_20_bad_calls(caps):
    names = ["bad_str", "bad_dict", "exits"]
    for i in range(21):
        caps.send({"type": "capability", "id": "b%d" % i, "name": names[i % 3], "args": []})
    answers = {}
    for _ in range(21):
        f = caps.frame(timeout=5)
        answers[f["id"]] = f
    assert answers["b0"]["code"] == "Exception"
    assert answers["b0"]["message"] == "<exception str() failed: RuntimeError: no str>"
    assert answers["b1"] == {
        "type": "error", "id": "b1", "code": "Rejected",
        "message": "value: dict subclass D: items() raised KeyError: 'items'",
    }
    assert answers["b2"]["code"] == "Exception" and answers["b2"]["message"] == "3"
    caps.send({"type": "capability", "id": "good", "name": "ok", "args": [41]})
    assert caps.frame(timeout=5) == {"type": "result", "id": "good", "value": 42}


def test_capability_huge_exception_is_clipped_not_rejected(caps):
    caps.send({"type": "capability", "id": "h", "name": "huge", "args": [2_000_000]})
    f = caps.frame(timeout=5)
    assert f["code"] == "Exception" and f["message"] == "y" * 1024
    assert len(json.dumps(f)) < 1 << 20


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_dead_capability_worker_gives_back_its_slot(monkeypatch):
    """Should a worker end anyway, the pool does not shrink for good."""
    from tether_sdk.evaluator import capability as cap

    served = queue.Queue()

    def serve(frame):
        if frame["kill"]:
            raise SystemExit  # reaches the last-resort reply...
        served.put(frame["id"])

    dying = queue.Queue()

    def failed(frame, exc):
        dying.put(threading.current_thread())
        raise exc  # ...which fails too: the worker thread ends

    monkeypatch.setattr(cap, "_serve", serve)
    monkeypatch.setattr(cap, "_failed", failed, raising=False)
    for i in range(cap.MAX_WORKERS + 4):
        cap._submit({"id": "b%d" % i, "kill": True}, b"{}")
    cap._submit({"id": "good", "kill": False}, b"{}")
    assert served.get(timeout=10) == "good"
    for _ in range(cap.MAX_WORKERS + 4):  # a bad job taken before "good" may still be on its way out
        dying.get(timeout=10).join(10)  # each reports its exception before it ends: here, not in a later test
    assert 0 < cap._workers <= cap.MAX_WORKERS


# --- evaluator: sys.stdout.buffer is line-atomic too ------------------------


def test_evaluator_stdout_buffer_never_splits_a_frame(peers):
    p = peers.evaluator("""
        import io, sys
        from tether_sdk.evaluator import SolutionRunner
        r = SolutionRunner()
        print("a")
        sys.stdout.buffer.write(b"b\\n")
        print("c")
        sys.stdout.buffer.write(b"raw-partial")
        sys.stdout.buffer.flush()
        print(" progress", end="", flush=True)
        v = r.call("f", 1)
        sys.stdout.buffer.write(bytearray(b" \\xc3\\xa9\\n"))
        w = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8")
        w.write("wrapped partial")
        w.flush()
        r.call("g")
        w.write(" end\\n")
        w.flush()
        sys.stdout.buffer.write(b"tail")
    """)
    assert [p.text(), p.text(), p.text()] == ["a", "b", "c"]
    f = p.frame()  # a clean frame line: the partial text waits
    assert f["type"] == "call" and f["fn"] == "f"
    p.send({"type": "result", "id": f["id"], "value": 2})
    assert p.text() == "raw-partial progress \u00e9"
    f = p.frame()
    assert f["type"] == "call" and f["fn"] == "g"
    p.send({"type": "result", "id": f["id"], "value": None})
    assert p.text() == "wrapped partial end"
    assert p.text() == "tail"  # written at exit
    assert p.line() is None
    assert p.wait() == 0
