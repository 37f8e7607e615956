from tether_sdk.solution import call_capability


def translate(sentence):
    words = []
    for w in sentence.split():
        t = call_capability("lookup", w)
        words.append(t if t is not None else "?")
    return " ".join(words)
