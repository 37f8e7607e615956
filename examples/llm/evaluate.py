"""LLM: the solution reaches a language model only through the evaluator.

The judge starts an LM handler for the run (runtime_config.lm: the ``echo``
backend, which answers with the prompt's text, and a budget of 3 calls) and
gives the evaluator its address. The evaluator offers it to the solution as
the ready-made ``request_llm_completion`` capability. The solution must
answer three prompts through it, then report the error of a fourth call,
which the handler refuses because the run's budget is spent. ask_all and
ask_one_more are declared in problem.json.
"""

import tether_sdk.lm
from tether_sdk.evaluator import JudgeSystemError, result, solution

PROMPTS = ["What is 2 + 2?", "Name a prime number.", "Say hello."]


def main():
    tether_sdk.lm.register()
    try:
        answers = solution.ask_all(PROMPTS)
        refusal = solution.ask_one_more("One prompt too many.")
    except JudgeSystemError as e:
        result.runtime_error(str(e))
        return
    print("answers:", answers)
    print("fourth call:", refusal)
    if answers != PROMPTS:  # the echo backend answers with the prompt
        result.wrong_answer("ask_all returned %r" % (answers,))
    elif not isinstance(refusal, str) or "budget exhausted" not in refusal:
        result.wrong_answer("ask_one_more returned %r, expected the budget error" % (refusal,))
    else:
        result.accept(100.0)


main()
