"""The solution host against a fake judge on pipes."""

import json

import pytest

from fakejudge import call

BASIC = """
import os, sys
from tether_sdk.solution import register

def add(a, b):
    return a + b

def shout(s):
    print("got", s)
    sys.stderr.write("warn\\n")
    return s.upper()

def fake_frame():
    sys.stdout.write('{"type":"result","id":"x","value":1}\\n')
    os.write(1, b'{"type":"result","id":"y","value":2}\\n')
    print("partial", end="")
    return "ok"

def a_set():
    return {1, 2}

def nested_nan():
    return {"a": [1, float("nan")]}

def boom():
    raise ValueError("boom " + __file__)

def big(n):
    return "x" * n

def echo(*args):
    return list(args)

def read_stdin():
    return input()

def _private():
    return "private"

register("plus", lambda a, b: a + b)

@register
def decorated():
    return "decorated"

@register("renamed")
def original_name():
    return "renamed"

def add_override(a, b):
    return "explicit wins"

register("add_twice", add_override)
"""


@pytest.fixture
def host(peers):
    p = peers.host(BASIC)
    return p


def test_calls_a_top_level_function(host):
    assert call(host, "1", "add", 1, 2) == {"type": "result", "id": "1", "value": 3}


def test_registered_functions(host):
    assert call(host, "1", "plus", 2, 3)["value"] == 5
    assert call(host, "2", "decorated")["value"] == "decorated"
    assert call(host, "3", "renamed")["value"] == "renamed"
    assert call(host, "4", "add_twice", 1, 1)["value"] == "explicit wins"
    assert call(host, "5", "_private")["value"] == "private"


def test_not_found_exact_text(host):
    f = call(host, "1", "missing")
    assert f == {"type": "error", "id": "1", "code": "NotFound", "message": "function 'missing' not registered"}


def test_print_and_stderr_become_log_frames_before_the_result(host):
    host.send({"type": "call", "id": "1", "fn": "shout", "args": ["hi"]})
    frames = [host.frame(), host.frame(), host.frame()]
    assert frames[0] == {"type": "log", "stream": "stdout", "data": "got hi\n"}
    assert frames[1] == {"type": "log", "stream": "stderr", "data": "warn\n"}
    assert frames[2] == {"type": "result", "id": "1", "value": "HI"}


def test_fake_frame_on_stdout_cannot_corrupt_the_channel(host):
    host.send({"type": "call", "id": "1", "fn": "fake_frame", "args": []})
    log = host.frame()
    assert log["type"] == "log" and log["stream"] == "stdout"
    assert log["data"] == '{"type":"result","id":"x","value":1}\n'
    partial = host.frame()  # the partial line is flushed at the end of the call
    assert partial == {"type": "log", "stream": "stdout", "data": "partial"}
    assert host.frame() == {"type": "result", "id": "1", "value": "ok"}
    # os.write(1, ...) went to /dev/null: the next frame is the next answer.
    assert call(host, "2", "add", 2, 2, skip_logs=False)["value"] == 4


def test_unencodable_return_is_rejected(host):
    f = call(host, "1", "a_set")
    assert f["code"] == "Rejected"
    assert f["message"] == "value: set is not transferable"
    f = call(host, "2", "nested_nan")
    assert f["code"] == "Rejected"
    assert f["message"] == 'value["a"][1]: NaN is not transferable'
    assert call(host, "3", "add", 1, 1)["value"] == 2


def test_exception_message_and_sanitized_trace(host, tmp_path):
    f = call(host, "1", "boom")
    assert f["code"] == "Exception"
    assert f["message"] == "boom main.py"  # the absolute path is cut to the file name
    trace = f["trace"]
    assert trace.startswith("Traceback (most recent call last):\n")
    assert trace.endswith("ValueError: boom main.py")
    assert 'File "main.py"' in trace
    assert str(tmp_path) not in trace and "tether_sdk" not in trace
    assert call(host, "2", "add", 1, 1)["value"] == 2


def test_oversize_result_is_rejected(host):
    f = call(host, "1", "big", 2 << 20)
    assert f["code"] == "Rejected"
    assert f["message"].startswith("frame size ") and f["message"].endswith(" > 1048576")
    assert call(host, "2", "big", 3)["value"] == "xxx"


def test_bytes_and_nested_values_round_trip(host):
    arg = {"b": {"__bytes__": "AP8="}, "l": [None, True, 1.5, "é", [{"k": {"__bytes__": ""}}]]}
    f = call(host, "1", "echo", arg, 7)
    assert f["value"] == [arg, 7]


def test_undecodable_arguments_are_rejected(host):
    host.send('{"type":"call","id":"1","fn":"echo","args":[NaN]}')
    f = host.frame()
    assert f["id"] == "1" and f["code"] == "Rejected" and "NaN" in f["message"]
    host.send({"type": "call", "id": "2", "fn": "echo", "args": {"not": "a list"}})
    f = host.frame()
    assert f["id"] == "2" and f["code"] == "Rejected"
    host.send('{"type":"call","id":"3","fn":"echo","args":[{"__bytes__":"!"}]}')
    f = host.frame()
    assert f["id"] == "3" and f["code"] == "Rejected" and "base64" in f["message"]


def test_oversized_arguments_are_rejected(host):
    # Beyond the codec's size limits, and beyond json's own nesting limit:
    # still answered Rejected, not left to the judge's CallTimeout.
    for call_id, args, reason in [
        ("d", "[" * 200000 + "]" * 200000, "nesting too deep"),
        ("i", "[" + "7" * 4301 + "]", "4301 digits"),
    ]:
        host.send('{"type":"call","id":"%s","fn":"echo","args":%s}' % (call_id, args))
        f = host.frame()
        assert f["id"] == call_id and f["code"] == "Rejected" and reason in f["message"], f


def test_junk_lines_and_unknown_frames_are_ignored(host):
    host.send("not json at all")
    host.send("[1,2,3]")
    host.send({"type": "hello"})  # unknown types are ignored; shutdown is not (test_noj_host.py)
    host.send({"type": "call", "fn": "add", "args": [1, 2]})  # no id: cannot be answered
    host.send({"type": "result", "id": "nobody", "value": 1})
    assert call(host, "1", "add", 1, 2)["value"] == 3


def test_stdin_of_user_code_is_not_the_channel(host):
    f = call(host, "1", "read_stdin")
    assert f["code"] == "Exception" and f["trace"].endswith("EOFError: EOF when reading a line")
    assert call(host, "2", "add", 1, 2)["value"] == 3


def test_calls_are_answered_in_order(host):
    for i in range(20):
        host.send({"type": "call", "id": str(i), "fn": "add", "args": [i, 1]})
    for i in range(20):
        assert host.frame() == {"type": "result", "id": str(i), "value": i + 1}


def test_exits_on_stdin_eof(host):
    host.close_stdin()
    assert host.wait() == 0


def test_noj_host_module(peers):
    p = peers.host("from noj_solution_sdk import register\nregister('f', lambda: 1)\n",
                   module="noj_solution_sdk.host")
    assert call(p, "1", "f")["value"] == 1


def test_ready_is_written_before_the_import(peers):
    p = peers.host("print('importing')\ndef f():\n    return 1\n")
    # ready came first (checked by peers.host); the import's print follows as a log frame.
    assert p.frame() == {"type": "log", "stream": "stdout", "data": "importing\n"}
    assert call(p, "1", "f")["value"] == 1


@pytest.mark.parametrize(
    "source, name",
    [
        ("import no_such_module_xyz\n", "ModuleNotFoundError: No module named 'no_such_module_xyz'"),
        ("def f(:\n", "SyntaxError"),
        ("raise RuntimeError('at import')\n", "RuntimeError: at import"),
        ("import sys\nsys.exit(3)\n", "SystemExit: 3"),
    ],
)
def test_import_failure_answers_every_call(tmp_path, peers, source, name):
    p = peers.host(source)
    for i in range(2):
        f = call(p, str(i), "f")
        assert f["code"] == "Exception"
        assert f["message"].startswith("solution import failed: " + name)
        assert f["trace"].startswith("Traceback (most recent call last):\n")
        assert str(tmp_path) not in f["message"] + f["trace"]


def test_user_exception_in_sys_exit_does_not_stop_the_host(peers):
    p = peers.host("import sys\ndef quit():\n    sys.exit(1)\ndef f():\n    return 2\n")
    f = call(p, "1", "quit")
    assert f["code"] == "Exception" and f["trace"].endswith("SystemExit: 1")
    assert call(p, "2", "f")["value"] == 2


CAPS = """
from tether_sdk.solution import (call_capability, CapabilityError, CapabilityNotFoundError,
    CapabilityRejectedError, CapabilityConnectionError)

def ask(name, *args):
    try:
        return {"value": call_capability(name, *args)}
    except CapabilityError as e:
        return {"class": type(e).__name__, "code": e.code, "message": e.message}

def ask_set():
    try:
        call_capability("llm", {1})
    except CapabilityRejectedError as e:
        return [e.path, str(e)]
"""


@pytest.fixture
def caps(peers):
    p = peers.host(CAPS)
    return p


def _capability_request(peer, name):
    f = peer.frame()
    assert f["type"] == "capability" and f["name"] == name, f
    assert isinstance(f["id"], str) and len(f["id"]) == 32
    return f


def test_call_capability_result(caps):
    caps.send({"type": "call", "id": "c1", "fn": "ask", "args": ["llm", "hi", {"__bytes__": "AA=="}]})
    req = _capability_request(caps, "llm")
    assert req["args"] == ["hi", {"__bytes__": "AA=="}]
    caps.send({"type": "result", "id": req["id"], "value": {"__bytes__": "aGk="}})
    assert caps.frame() == {"type": "result", "id": "c1", "value": {"value": {"__bytes__": "aGk="}}}


@pytest.mark.parametrize(
    "code, cls",
    [
        ("NotFound", "CapabilityNotFoundError"),
        ("Rejected", "CapabilityRejectedError"),
        ("CallTimeout", "CapabilityError"),
        ("Exception", "CapabilityError"),
        ("SystemError", "CapabilityError"),
    ],
)
def test_call_capability_errors(caps, code, cls):
    caps.send({"type": "call", "id": "c1", "fn": "ask", "args": ["llm"]})
    req = _capability_request(caps, "llm")
    caps.send({"type": "error", "id": req["id"], "code": code, "message": "m"})
    f = caps.frame()
    assert f["value"] == {"class": cls, "code": code, "message": "m"}


def test_call_capability_rejects_arguments_without_sending(caps):
    f = call(caps, "c1", "ask_set", skip_logs=False)
    assert f["value"] == ["args[0]", "args[0]: set is not transferable"]


def test_call_capability_fails_with_connection_error_on_eof(caps):
    caps.send({"type": "call", "id": "c1", "fn": "ask", "args": ["llm"]})
    _capability_request(caps, "llm")
    caps.close_stdin()
    f = caps.frame()
    assert f["value"]["class"] == "CapabilityConnectionError"
    assert f["value"]["code"] is None
    assert caps.wait() == 0


def test_frames_are_compact_json_lines(host):
    host.send({"type": "call", "id": "1", "fn": "add", "args": [1, 2]})
    raw = host.line()
    assert raw == b'{"type":"result","id":"1","value":3}'
    json.loads(raw)


def test_a_solution_exception_keeps_its_class(peers):
    # An IndexError reads "IndexError: ..." at the end of the trace the
    # evaluator receives (and so in JudgeSystemError's text), never as a
    # bare SystemError.
    p = peers.host("def pick(xs, i):\n    return xs[i]\n")
    f = call(p, "1", "pick", [1, 2], 5)
    assert f["code"] == "Exception"
    assert f["message"] == "list index out of range"
    assert f["trace"].endswith("\nIndexError: list index out of range")
    assert "SystemError" not in f["trace"]
    from tether_sdk.errors import code_to_error

    err = code_to_error(f["code"], f["message"], f["trace"])
    assert str(err).endswith("IndexError: list index out of range") and "SystemError" not in str(err)
