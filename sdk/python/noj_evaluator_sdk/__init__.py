"""Neuro OJ's evaluator SDK names, as a thin layer over ``tether_sdk.evaluator``.

An ``evaluate.py`` written for Neuro OJ runs unchanged:
``from noj_evaluator_sdk.runner import SolutionRunner, SolutionTimeoutError``,
``from noj_evaluator_sdk import result, register_capability, configure_logging``.
``result`` is the ``Result`` singleton (``noj_evaluator_sdk.result.Result``).
``SystemError`` and ``ConnectionError`` are Neuro OJ's names of tether's
``JudgeSystemError`` and ``JudgeConnectionError``: they shadow the builtins
here, as in Neuro OJ (and subclass them); ``ConnectionError`` is a
``SystemError``. See docs/protocol/judge.md for the protocol underneath and
docs/sdk.md for the names.
"""

from tether_sdk.errors import (  # noqa: F401
    NotFoundError,
    RejectedError,
    SolutionTimeoutError,
    TetherError,
)
from tether_sdk.errors import JudgeConnectionError as ConnectionError  # noqa: A004 - Neuro OJ's name
from tether_sdk.errors import JudgeSystemError as SystemError  # noqa: A004 - Neuro OJ's name

from . import capability, errors, logging_config, runner, serialization  # noqa: F401
from .capability import register_capability  # noqa: F401
from .logging_config import configure_logging  # noqa: F401
from .result import Result
from .runner import SolutionRunner  # noqa: F401

# The package attribute ``result`` is the singleton, as in Neuro OJ (the
# module stays importable as ``noj_evaluator_sdk.result`` through sys.modules).
result = Result()

__all__ = [
    "SolutionRunner",
    "register_capability",
    "result",
    "Result",
    "configure_logging",
    "NotFoundError",
    "RejectedError",
    "SolutionTimeoutError",
    "SystemError",
    "ConnectionError",
]
