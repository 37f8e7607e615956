from noj_solution_sdk import register


def solve(s: str) -> str:
    """Return the words of s in reverse order, joined by single spaces."""
    raise NotImplementedError


register(solve)
