"""Problems written the Neuro OJ way (noj_problems/), judged by the real
``tether judge`` with the verdicts they expect; and the relay keeping the
judge protocol (an evaluator's ``shutdown`` frame is not forwarded)."""

import os
import subprocess
import textwrap

import pytest

from test_e2e import judge, public_tmp, tether  # noqa: F401 - fixtures

PROBLEMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "noj_problems")

CASES = [
    ("capability_timeout", "Accepted", 10000, None),
    ("call_timeout", "Accepted", 1000, None),
    ("solution_timeout", "WrongAnswer", 5000, "case 3: time limit exceeded"),
]


@pytest.mark.parametrize("problem, status, score, message", CASES, ids=[c[0] for c in CASES])
def test_noj_problem_verdict(tether, problem, status, score, message):  # noqa: F811
    res = judge(tether, os.path.join(PROBLEMS, problem), os.path.join(PROBLEMS, problem, "solution.py"))
    assert (res["status"], res["score"]) == (status, score), res
    if message is not None:
        assert res["details"]["message"] == message, res


def test_summary_shows_the_problems_own_points(tether):  # noqa: F811
    problem = os.path.join(PROBLEMS, "call_timeout")  # worth 10 points
    proc = subprocess.run([tether, "judge", problem, os.path.join(problem, "solution.py")],
                          capture_output=True, text=True, timeout=120)
    assert "verdict:  Accepted\nscore:    10.00\n" in proc.stdout, proc.stdout + proc.stderr


def test_an_evaluators_shutdown_frame_is_not_forwarded(tether, public_tmp):  # noqa: F811
    (public_tmp / "problem.json").write_text('{"format_version": 1, "title": "shutdown"}')
    (public_tmp / "evaluate.py").write_text(textwrap.dedent("""
        import sys
        from noj_evaluator_sdk import SolutionRunner, result
        runner = SolutionRunner()
        before = runner.call("f", 1)
        sys.stdout.write('{"type":"shutdown"}\\n')  # Neuro OJ's host would exit; the judge drops it
        sys.stdout.flush()
        result.accept(100.0, before=before, after=runner.call("f", 2))
    """))
    (public_tmp / "solution.py").write_text("def f(x):\n    return x * 10\n")
    res = judge(tether, str(public_tmp), str(public_tmp / "solution.py"))
    assert (res["status"], res["details"]) == ("Accepted", {"before": 10, "after": 20}), res
