"""configure_logging: keep stdout for the protocol and the result."""

import logging
import sys

from ._channel import channel

__all__ = ["configure_logging"]


def configure_logging(level: int = logging.INFO, fmt: str = "%(asctime)s %(levelname)s %(name)s: %(message)s") -> None:
    """Send ``print()`` and the ``logging`` module to stderr (collected by the
    judge as the evaluator's log, after ``--- STDERR ---`` in the output) so
    that stdout carries only frames and the result. SolutionRunner and
    ``result`` keep writing to the real stdout. Idempotent."""
    channel()  # binds the channel to the real stdout before print is moved
    sys.stdout = sys.stderr
    root = logging.getLogger()
    for h in list(root.handlers):
        if getattr(h, "_tether", False):
            root.removeHandler(h)
    handler = logging.StreamHandler(sys.stderr)
    handler._tether = True
    handler.setFormatter(logging.Formatter(fmt))
    root.addHandler(handler)
    root.setLevel(level)
