from tether_sdk.solution import call_capability


def answer_all(questions: list) -> list:
    """Answer each question; call_capability("request_llm_completion", prompt)
    returns the model's answer as text."""
    raise NotImplementedError
