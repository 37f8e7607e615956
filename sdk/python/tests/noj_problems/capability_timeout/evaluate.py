import time

from noj_evaluator_sdk import SolutionRunner, register_capability, result

DICTIONARY = {"cat": "chat", "dog": "chien"}


def lookup(word):
    return DICTIONARY.get(word)


def slow_fetch(url):
    time.sleep(3)  # past its own 300 ms deadline, well within the problem's 10 s
    return "a page that comes too late"


register_capability("lookup", lookup)
register_capability("slow_fetch", slow_fetch, timeout_ms=300)

runner = SolutionRunner()
got = runner.call("solve", ["cat", "dog", "cow"])
if got == {"words": ["chat", "chien", None], "fetch": "CallTimeout"}:
    result.accept()
else:
    result.wrong_answer(0, "solve returned %r" % (got,))
