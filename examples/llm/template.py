from tether_sdk.solution import CapabilityError, call_capability


def ask_all(prompts):
    """Ask call_capability("request_llm_completion", prompt) for each prompt; return the answers in order."""
    raise NotImplementedError


def ask_one_more(prompt):
    """Ask once more; the run's LM budget is spent, so return the error's text."""
    raise NotImplementedError
