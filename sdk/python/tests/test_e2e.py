"""End to end through the real ``tether judge`` binary.

The binary comes from TETHER_BIN, else ``go build ./cmd/tether`` into a temp
dir. They skip only when neither is available (no Go toolchain).
"""

import json
import os
import shutil
import pathlib
import subprocess
import tempfile
import textwrap

import pytest

from conftest import REPO_ROOT

EXAMPLES = os.path.join(REPO_ROOT, "examples")


@pytest.fixture(scope="session")
def tether(tmp_path_factory):
    binary = os.environ.get("TETHER_BIN")
    if not binary:
        go = shutil.which("go")
        if go is None:
            pytest.skip("go is not installed and TETHER_BIN is not set")
        binary = str(tmp_path_factory.mktemp("bin") / "tether")
        build = subprocess.run([go, "build", "-o", binary, "./cmd/tether"], cwd=REPO_ROOT,
                               capture_output=True, text=True)
        assert build.returncode == 0, "go build ./cmd/tether failed:\n" + build.stderr
    probe = subprocess.run([binary, "judge", "--help"], capture_output=True, text=True)
    assert probe.returncode == 0, "tether judge --help failed:\n" + probe.stderr
    probe_dir = _public_dir()
    try:
        assert _ships_sdk(binary, probe_dir), "tether judge does not put the embedded Python SDK on PYTHONPATH"
    finally:
        shutil.rmtree(str(probe_dir))
    return binary


def _public_dir():
    """A temp dir the sandboxed sides (another uid) can read; pytest's tmp_path is 0700."""
    d = tempfile.mkdtemp(prefix="tether-e2e-")
    os.chmod(d, 0o755)
    return pathlib.Path(d)


@pytest.fixture
def public_tmp():
    d = _public_dir()
    yield d
    shutil.rmtree(str(d))


def _ships_sdk(binary, tmp):
    """Whether the judge gives its sides the SDK: an evaluator that only imports it."""
    (tmp / "problem.json").write_text('{"format_version": 1, "title": "probe"}')
    (tmp / "evaluate.py").write_text(
        "import tether_sdk.evaluator, noj_evaluator_sdk\n"
        "print('---RESULT---')\n"
        "print('{\"status\": \"Accepted\", \"score\": 10000, \"details\": {}}')\n")
    (tmp / "solution.py").write_text("def f():\n    return 1\n")
    res = judge(binary, str(tmp), str(tmp / "solution.py"))
    if res["status"] == "Accepted":
        return True
    assert "No module named" in res.get("output", ""), res
    return False


def judge(tether, problem, solution):
    proc = subprocess.run([tether, "judge", problem, solution, "--json"], capture_output=True, text=True,
                          timeout=120)
    try:
        return json.loads(proc.stdout)
    except ValueError:
        raise AssertionError("tether judge printed no JSON (exit %d):\nstdout: %s\nstderr: %s"
                             % (proc.returncode, proc.stdout, proc.stderr)) from None


VERDICTS = [
    ("aplusb", "solution.py", "Accepted", 10000),
    ("aplusb", "submissions/wrong_answer/wrong.py", "WrongAnswer", 5000),
    ("aplusb", "submissions/run_time_error/crash.py", "RuntimeError", 0),
    ("aplusb", "template.py", "RuntimeError", 0),
    ("guess", "solution.py", "Accepted", 10000),
    ("guess", "submissions/wrong_answer/wrong.py", "WrongAnswer", 2000),
    ("capability", "solution.py", "Accepted", 10000),
    ("bytes", "solution.py", "Accepted", 10000),
    ("noj", "solution.py", "Accepted", 9500),
]


@pytest.mark.parametrize("example, submission, status, score", VERDICTS,
                         ids=["%s/%s" % v[:2] for v in VERDICTS])
def test_example_verdict(tether, example, submission, status, score):
    res = judge(tether, os.path.join(EXAMPLES, example), os.path.join(EXAMPLES, example, *submission.split("/")))
    assert (res["status"], res["score"]) == (status, score), res


def test_crash_reports_the_sanitized_trace(tether):
    res = judge(tether, os.path.join(EXAMPLES, "aplusb"), os.path.join(EXAMPLES, "aplusb", "submissions", "run_time_error", "crash.py"))
    message = res["details"]["message"]
    assert "ZeroDivisionError" in message and 'File "main.py"' in message, message
    assert EXAMPLES not in message


HOSTILE_EVALUATOR = """
import json
from tether_sdk.evaluator import (SolutionRunner, RejectedError, SolutionTimeoutError, JudgeSystemError,
    NotFoundError, result)

runner = SolutionRunner()
outcomes = {}
for fn, timeout in [("prints", None), ("fake_frame", None), ("returns_set", None), ("raises", None),
                    ("loops", 500), ("after", None), ("missing", None)]:
    try:
        outcomes[fn] = ["value", runner.call(fn, timeout_ms=timeout)]
    except (RejectedError, SolutionTimeoutError, JudgeSystemError, NotFoundError) as e:
        outcomes[fn] = [type(e).__name__, str(e)]
result.accept(100.0, **outcomes)
"""

HOSTILE_SOLUTION = """
import sys

def prints():
    print("printed line")
    return 1

def fake_frame():
    sys.stdout.write('{"type":"result","id":"x","value":1}\\n')
    return 2

def returns_set():
    return {1, 2}

def raises():
    raise KeyError("nope")

def loops():
    while True:
        pass

def after():
    return 42
"""


def test_hostile_solution_outcomes(tether, public_tmp):
    tmp_path = public_tmp
    problem = tmp_path / "problem"
    problem.mkdir()
    (problem / "problem.json").write_text(json.dumps({
        "format_version": 1, "title": "hostile",
        "runtime_config": {"evaluator": {"time_limit_ms": 30000},
                           "solution": {"call_timeout_ms": 3000, "on_call_timeout": "restart"}}}))
    (problem / "evaluate.py").write_text(textwrap.dedent(HOSTILE_EVALUATOR))
    solution = tmp_path / "hostile.py"
    solution.write_text(textwrap.dedent(HOSTILE_SOLUTION))
    res = judge(tether, str(problem), str(solution))
    assert res["status"] == "Accepted", res
    d = res["details"]
    assert d["prints"] == ["value", 1]
    assert d["fake_frame"] == ["value", 2]  # the fake frame was only a log line
    assert d["returns_set"] == ["RejectedError", "value: set is not transferable"]
    assert d["raises"][0] == "JudgeSystemError"
    assert d["raises"][1].startswith("'nope'\nTraceback (most recent call last):\n")
    assert d["raises"][1].endswith("KeyError: 'nope'")
    assert d["loops"] == ["SolutionTimeoutError", "call timeout"]
    assert d["after"] == ["value", 42]  # a fresh host after the restart
    assert d["missing"] == ["NotFoundError", "function 'missing' not registered"]
    assert "printed line" in json.dumps(res.get("logs"))
