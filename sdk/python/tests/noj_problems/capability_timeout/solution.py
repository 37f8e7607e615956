from noj_solution_sdk import CapabilityError, call_capability


def solve(words):
    translated = [call_capability("lookup", w) for w in words]
    try:
        fetched = call_capability("slow_fetch", "https://example.org/")
    except CapabilityError as e:
        fetched = e.code
    return {"words": translated, "fetch": fetched}
