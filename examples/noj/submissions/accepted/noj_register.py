# The Neuro OJ way: the solution registers its function with
# noj_solution_sdk.register, under the name the evaluator calls.
from noj_solution_sdk import register


def reverse_words(s):
    return " ".join(reversed(s.split()))


register("solve", reverse_words)
