"""Neuro OJ parity: every public name of its two SDKs by its Neuro OJ import
path, its Result lines byte for byte, its registry and serialization
functions. (The host's lifecycle is in test_noj_host.py; problems written
the Neuro OJ way, judged by the real binary, in test_noj_problems.py.)"""

import importlib
import json
import subprocess
import sys
import textwrap

import pytest

from conftest import SDK_DIR
from fakejudge import call

import tether_sdk.errors as te
import tether_sdk.evaluator as tev
import tether_sdk.solution as ts

EVALUATOR_NAMES = [
    ("noj_evaluator_sdk", "SolutionRunner", tev.SolutionRunner),
    ("noj_evaluator_sdk", "register_capability", tev.register_capability),
    ("noj_evaluator_sdk", "configure_logging", tev.configure_logging),
    ("noj_evaluator_sdk", "Result", tev.result.Result),
    ("noj_evaluator_sdk", "ConnectionError", te.JudgeConnectionError),
    ("noj_evaluator_sdk", "NotFoundError", te.NotFoundError),
    ("noj_evaluator_sdk", "RejectedError", te.RejectedError),
    ("noj_evaluator_sdk", "SolutionTimeoutError", te.SolutionTimeoutError),
    ("noj_evaluator_sdk", "SystemError", te.JudgeSystemError),
    ("noj_evaluator_sdk.runner", "SolutionRunner", tev.SolutionRunner),
    ("noj_evaluator_sdk.runner", "SolutionTimeoutError", te.SolutionTimeoutError),
    ("noj_evaluator_sdk.result", "Result", tev.result.Result),
    ("noj_evaluator_sdk.capability", "register_capability", tev.register_capability),
    ("noj_evaluator_sdk.logging_config", "configure_logging", tev.configure_logging),
    ("noj_evaluator_sdk.errors", "SdkError", te.TetherError),
    ("noj_evaluator_sdk.errors", "ConnectionError", te.JudgeConnectionError),
    ("noj_evaluator_sdk.errors", "NotFoundError", te.NotFoundError),
    ("noj_evaluator_sdk.errors", "RejectedError", te.RejectedError),
    ("noj_evaluator_sdk.errors", "SolutionTimeoutError", te.SolutionTimeoutError),
    ("noj_evaluator_sdk.errors", "SystemError", te.JudgeSystemError),
]

SOLUTION_NAMES = [
    ("noj_solution_sdk", "register", ts.register),
    ("noj_solution_sdk", "call_capability", ts.call_capability),
    ("noj_solution_sdk", "FunctionAlreadyRegisteredError", ts.FunctionAlreadyRegisteredError),
    ("noj_solution_sdk", "NotRegisteredError", ts.NotRegisteredError),
    ("noj_solution_sdk", "CapabilityError", ts.CapabilityError),
    ("noj_solution_sdk", "CapabilityNotFoundError", ts.CapabilityNotFoundError),
    ("noj_solution_sdk", "CapabilityRejectedError", ts.CapabilityRejectedError),
    ("noj_solution_sdk", "CapabilityConnectionError", ts.CapabilityConnectionError),
    ("noj_solution_sdk.registry", "register", ts.register),
    ("noj_solution_sdk.registry", "get_registry", ts.get_registry),
    ("noj_solution_sdk.registry", "FunctionAlreadyRegisteredError", ts.FunctionAlreadyRegisteredError),
    ("noj_solution_sdk.registry", "NotRegisteredError", ts.NotRegisteredError),
    ("noj_solution_sdk.capability", "call_capability", ts.call_capability),
    ("noj_solution_sdk.capability", "CapabilityError", ts.CapabilityError),
]


@pytest.mark.parametrize("module, name, want", EVALUATOR_NAMES + SOLUTION_NAMES,
                         ids=["%s.%s" % n[:2] for n in EVALUATOR_NAMES + SOLUTION_NAMES])
def test_name_by_its_noj_path(module, name, want):
    assert getattr(importlib.import_module(module), name) is want


@pytest.mark.parametrize("module, names", [
    ("noj_evaluator_sdk.serialization",
     ["MAX_FRAME_BYTES", "check_frame_size", "decode_value", "encode_value", "estimate_frame_size", "validate_type"]),
    ("noj_solution_sdk.serialization",
     ["MAX_FRAME_BYTES", "check_frame_size", "decode_value", "encode_value", "validate_type"]),
    ("noj_solution_sdk.sanitize", ["sanitize_trace"]),
    ("noj_solution_sdk.host", ["main"]),
])
def test_modules_by_their_noj_paths(module, names):
    m = importlib.import_module(module)
    assert all(callable(getattr(m, n)) or n == "MAX_FRAME_BYTES" for n in names)


def test_result_is_the_singleton_and_connection_error_a_system_error():
    import noj_evaluator_sdk
    from noj_evaluator_sdk import result
    from noj_evaluator_sdk.result import Result

    assert isinstance(result, Result) and noj_evaluator_sdk.result is result
    assert issubclass(te.JudgeConnectionError, te.JudgeSystemError)
    assert issubclass(te.JudgeConnectionError, ConnectionError) and issubclass(te.JudgeSystemError, SystemError)


def run_evaluator(source):
    """stdout bytes and exit status of an evaluator script run with stdin closed."""
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(source)], stdin=subprocess.DEVNULL,
                          capture_output=True, env={"PYTHONPATH": SDK_DIR, "PYTHONDONTWRITEBYTECODE": "1"},
                          timeout=30)
    return proc.stdout, proc.returncode, proc.stderr.decode("utf-8", "replace")


def result_line(payload):
    return b"---RESULT---\n" + payload.encode("utf-8") + b"\n"


@pytest.mark.parametrize("call, want", [
    ("result.accept()", '{"status":"Accepted","score":10000,"details":{}}'),
    ("result.accept(87.5)", '{"status":"Accepted","score":8750,"details":{}}'),
    ("result.accept(score=0.125, note='half', cases=[1, 2])",  # round(12.5) == 12, as Neuro OJ rounds
     '{"status":"Accepted","score":12,"details":{"note":"half","cases":[1,2]}}'),
    ("result.accept(10, details={'points': 10})", '{"status":"Accepted","score":1000,"details":{"points":10}}'),
    ("result.wrong_answer()", '{"status":"WrongAnswer","score":0,"details":{}}'),
    ("result.wrong_answer(30, 'off by one')",
     '{"status":"WrongAnswer","score":3000,"details":{"message":"off by one"}}'),
    ("result.wrong_answer(message='答案错误', details={'case': 3}, got=4)",
     '{"status":"WrongAnswer","score":0,"details":{"case":3,"got":4,"message":"答案错误"}}'),
    ("result.runtime_error('boom', case=2)",
     '{"status":"RuntimeError","score":0,"details":{"case":2,"message":"boom"}}'),
    ("result.system_error('support package broken')",
     '{"status":"SystemError","score":0,"details":{"message":"support package broken"}}'),
])
def test_result_lines_byte_for_byte(call, want):
    out, status, err = run_evaluator("from noj_evaluator_sdk import result\n" + call + "\n")
    assert (out, status) == (result_line(want), 0), err


def test_a_second_result_raises_and_writes_nothing():
    out, status, err = run_evaluator("""
        from noj_evaluator_sdk import result
        from noj_evaluator_sdk.result import Result
        result.accept()
        for second in (lambda: result.wrong_answer(0, "again"), lambda: Result().system_error("other")):
            try:
                second()
            except RuntimeError as e:
                print("refused:", e)
    """)
    want = result_line('{"status":"Accepted","score":10000,"details":{}}')
    assert out == want + b"refused: the result was already written\n" * 2, err


def test_serialization_functions():
    from noj_evaluator_sdk import serialization as es
    from noj_solution_sdk import serialization as ss

    value = {"b": b"\x00hi", "n": [1, 2.5, None, True], "s": "é"}
    for m in (es, ss):
        encoded = m.encode_value(value)
        assert encoded == {"b": {"__bytes__": "AGhp"}, "n": [1, 2.5, None, True], "s": "é"}
        assert json.loads(json.dumps(encoded)) == encoded
        assert m.decode_value(encoded) == value
        assert m.MAX_FRAME_BYTES == 1 << 20
        m.validate_type(value)
        m.check_frame_size("x" * (1 << 20))
    assert es.estimate_frame_size(value) >= len(json.dumps(es.encode_value(value), separators=(",", ":"),
                                                     ensure_ascii=False).encode("utf-8"))
    for m, cls in ((es, te.RejectedError), (ss, ts.CapabilityRejectedError)):
        with pytest.raises(cls, match=r"^arg\[0\]\[\"k\"\]: set is not transferable$"):
            m.validate_type({"k": {1}}, "arg[0]")
        with pytest.raises(cls, match=r"^frame size 1048577 > 1048576$"):
            m.check_frame_size("x" * ((1 << 20) + 1))


def test_sanitize_trace_cuts_paths():
    from noj_solution_sdk.sanitize import sanitize_trace

    assert sanitize_trace() == ""
    try:
        raise ValueError("bad /srv/secret/dir/config.py")
    except ValueError as e:
        implicit, explicit = sanitize_trace(), sanitize_trace(e)
    assert implicit == explicit
    assert explicit.startswith("Traceback (most recent call last):\n")
    assert 'File "test_noj.py"' in explicit and explicit.endswith("ValueError: bad config.py")
    assert SDK_DIR not in explicit and "/srv/secret" not in explicit


def test_registry_registers_a_name_once(peers):
    p = peers.host("""
        from noj_solution_sdk import FunctionAlreadyRegisteredError
        from noj_solution_sdk.registry import get_registry, register

        @register
        def solve(a, b):
            return a + b

        register("twice", lambda: 2)
        try:
            register("twice", lambda: 3)
        except FunctionAlreadyRegisteredError as e:
            refused = str(e)

        def report():
            return [refused, sorted(get_registry().names()), get_registry().get("twice")()]
    """, module="noj_solution_sdk.host")
    assert call(p, "1", "solve", 1, 2)["value"] == 3
    assert call(p, "2", "report")["value"] == ["function 'twice' already registered", ["solve", "twice"], 2]


TETHER_MODULES = ["tether_sdk", "tether_sdk.errors", "tether_sdk.evaluator", "tether_sdk.evaluator.result",
                  "tether_sdk.solution", "tether_sdk.solution.errors", "tether_sdk.codec", "tether_sdk.lm"]


@pytest.mark.parametrize("module", TETHER_MODULES)
def test_tether_names_do_not_shadow_builtins(module):
    import builtins

    m = importlib.import_module(module)
    public = getattr(m, "__all__", [n for n in vars(m) if not n.startswith("_")])
    assert not [n for n in public if hasattr(builtins, n)], "names of builtins in %s" % module


def test_names_before_the_rename_still_import():
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from tether_sdk.evaluator import ConnectionError as old_connection
        from tether_sdk.evaluator import SystemError as old_system
    assert old_system is te.JudgeSystemError and old_connection is te.JudgeConnectionError
    assert caught and all(w.category is PendingDeprecationWarning for w in caught)
    with pytest.raises(ImportError):
        from tether_sdk.evaluator import NoSuchName  # noqa: F401
