from noj_solution_sdk import register


def reverse_words(s):
    return " ".join(reversed(s.split()))


register("solve", reverse_words)
