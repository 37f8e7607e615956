from tether_sdk.solution import CapabilityError, call_capability


def ask_all(prompts):
    return [call_capability("request_llm_completion", p) for p in prompts]


def ask_one_more(prompt):
    try:
        return call_capability("request_llm_completion", prompt)
    except CapabilityError as e:
        return str(e)
