"""The evaluator's capability queue is bounded (issue 17): a solution that
keeps every capability worker busy and queues 1 MiB frames of nested arrays
(~35 MB each once decoded) gets those frames answered Rejected; it cannot run
the evaluator out of memory and turn its own WrongAnswer into SystemError."""

import json

from test_e2e import judge, public_tmp, tether  # noqa: F401 - fixtures

EVALUATOR = """
import threading
from tether_sdk.evaluator import SolutionRunner, register_capability, result

release = threading.Event()

def slow(*args):
    release.wait(60)  # busy until the attack is over
    return len(args)

register_capability("slow", slow)
answer = SolutionRunner().call("attack")
release.set()
result.wrong_answer(0, "attack answered %r" % (answer,))
"""

# Frames written straight to the protocol fd, never waited for: 16 small ones
# occupy the workers, then 1 MiB frames of nested empty arrays queue up.
SOLUTION = """
from tether_sdk._frames import new_id
from tether_sdk.solution import _runtime

NESTED = "[" + ",".join(["[[[[[[]]]]]]"] * 80000) + "]"

def frame(args):
    return ('{"type":"capability","id":"%s","name":"slow","args":%s}\\n' % (new_id(), args)).encode()

def attack():
    for _ in range(16):
        _runtime.writer.write_line(frame("[1]"))
    for _ in range(6):
        _runtime.writer.write_line(frame("[" + NESTED + "]"))
    return "sent"
"""


def test_queued_capability_frames_cannot_exhaust_the_evaluator(tether, public_tmp):  # noqa: F811
    (public_tmp / "problem.json").write_text(json.dumps({
        "format_version": 1, "title": "capability flood",
        "runtime_config": {"evaluator": {"time_limit_ms": 60000, "memory_limit_mb": 160},
                           "solution": {"call_timeout_ms": 30000}}}))
    (public_tmp / "evaluate.py").write_text(EVALUATOR)
    (public_tmp / "solution.py").write_text(SOLUTION)
    res = judge(tether, str(public_tmp), str(public_tmp / "solution.py"))
    assert (res["status"], res["details"].get("message")) == ("WrongAnswer", "attack answered 'sent'"), res
