# State kept between calls: the host imports this file once and serves
# every call from the same module.

def new_game(lo, hi):
    """A new game over [lo, hi] starts."""


def guess():
    """Return your next guess (an int in [lo, hi])."""
    raise NotImplementedError


def feedback(answer):
    """answer is "higher", "lower" or "correct" for your last guess."""
