"""Capabilities: the solution asks the evaluator for data.

``lookup(word)`` answers from a dictionary the solution never sees
(per-capability timeout 1000 ms). ``slow_oracle()`` sleeps longer than its
own 300 ms timeout, so the judge answers the solution with ``CallTimeout``
and drops the late reply. The solution must translate a sentence with
``lookup`` and report that the oracle timed out. translate and ask_oracle
are declared in problem.json.
"""

import time

from tether_sdk.evaluator import JudgeSystemError, register_capability, result, solution

DICTIONARY = {"hello": "bonjour", "world": "monde", "cat": "chat"}


def lookup(word):
    return DICTIONARY.get(word)


def slow_oracle():
    time.sleep(1.0)
    return "too late"


def main():
    register_capability("lookup", lookup, timeout_ms=1000)
    register_capability("slow_oracle", slow_oracle, timeout_ms=300)
    try:
        translated = solution.translate("hello cat world dog")
        oracle = solution.ask_oracle()
    except JudgeSystemError as e:
        result.runtime_error(str(e))
        return
    if translated != "bonjour chat monde ?":
        result.wrong_answer("translate returned %r" % (translated,))
    elif oracle != "CallTimeout":
        result.wrong_answer("ask_oracle returned %r, expected the capability's timeout code" % (oracle,))
    else:
        result.accept(100.0)


main()
