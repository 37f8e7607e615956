from tether_sdk.solution import CapabilityError, call_capability


def translate(sentence):
    words = []
    for w in sentence.split():
        t = call_capability("lookup", w)
        words.append(t if t is not None else "?")
    return " ".join(words)


def ask_oracle():
    try:
        return call_capability("slow_oracle")
    except CapabilityError as e:
        return e.code
