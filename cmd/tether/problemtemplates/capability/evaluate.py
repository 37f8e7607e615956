"""Capabilities: the solution calls functions the evaluator offers.

The evaluator registers lookup(word) (each call must be answered within
500 ms) and calls the solution's translate(sentence), which may call
lookup as often as it likes. The dictionary never leaves the evaluator.
"""

from tether_sdk.evaluator import SolutionRunner, JudgeSystemError, register_capability, result

DICTIONARY = {"hello": "bonjour", "world": "monde", "cat": "chat"}
CASES = {"hello world": "bonjour monde", "hello cat": "bonjour chat", "cat dog": "chat ?"}


def lookup(word):
    return DICTIONARY.get(word)


def main():
    register_capability("lookup", lookup, timeout_ms=500)
    runner = SolutionRunner()
    for sentence, want in CASES.items():
        try:
            got = runner.call("translate", sentence)
        except JudgeSystemError as e:
            result.runtime_error(str(e))
            return
        if got != want:
            result.wrong_answer("translate(%r) returned %r, expected %r" % (sentence, got, want))
            return
    result.accept(100.0)


main()
