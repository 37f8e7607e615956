"""Neuro OJ's evaluator SDK names, as a thin layer over ``tether_sdk.evaluator``.

An ``evaluate.py`` written for Neuro OJ runs unchanged:
``from noj_evaluator_sdk.runner import SolutionRunner, SolutionTimeoutError``,
``from noj_evaluator_sdk import result, register_capability, configure_logging``.
``SystemError`` and ``ConnectionError`` are tether classes that shadow the
builtins (and subclass them); see ``tether_sdk.errors``.
"""

from tether_sdk.errors import (  # noqa: F401
    ConnectionError,
    NotFoundError,
    RejectedError,
    SolutionTimeoutError,
    SystemError,
    TetherError,
)
from tether_sdk.evaluator import configure_logging, register_capability  # noqa: F401

from . import result  # noqa: F401
from .runner import SolutionRunner  # noqa: F401

__all__ = [
    "SolutionRunner",
    "register_capability",
    "configure_logging",
    "result",
    "NotFoundError",
    "RejectedError",
    "SolutionTimeoutError",
    "SystemError",
    "ConnectionError",
]
