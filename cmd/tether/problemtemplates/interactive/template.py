def new_game(limit: int) -> None:
    """A new secret between 1 and limit is chosen."""


def guess() -> int:
    """Your next guess."""
    raise NotImplementedError


def feedback(word: str) -> None:
    """Your last guess was wrong: the secret is "higher" or "lower"."""
