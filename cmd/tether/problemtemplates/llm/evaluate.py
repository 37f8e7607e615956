"""A language model for the solution, through the evaluator.

The judge starts an LM handler for the run from runtime_config.lm (here the
"echo" backend, which answers with the prompt, and a budget of 5 calls) and
gives only the evaluator its address. tether_sdk.lm.register() offers it to
the solution as the request_llm_completion capability. To use a real model,
replace the backend (docs/protocol/lm.md, "The configuration file"); keys
stay in the judge's environment, never in the problem.
"""

import tether_sdk.lm
from tether_sdk.evaluator import SolutionRunner, JudgeSystemError, result

QUESTIONS = ["What is 2 + 2?", "Name a prime number."]


def main():
    tether_sdk.lm.register()
    runner = SolutionRunner()
    try:
        answers = runner.call("answer_all", QUESTIONS)
    except JudgeSystemError as e:
        result.runtime_error(str(e))
        return
    if not isinstance(answers, list) or len(answers) != len(QUESTIONS):
        result.wrong_answer("answer_all returned %r" % (answers,))
        return
    print("answers:", answers)
    result.accept(100.0)


main()
