from tether_sdk.solution import call_capability


def answer_all(questions):
    return [call_capability("request_llm_completion", q) for q in questions]
