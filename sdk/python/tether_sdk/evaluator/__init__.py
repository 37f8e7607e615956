"""Evaluator side of the dual protocol, for the problem setter's ``evaluate.py``.

    from tether_sdk.evaluator import SolutionRunner, result, register_capability

    runner = SolutionRunner()
    if runner.call("add", 1, 2) == 3:
        result.accept()
    else:
        result.wrong_answer("1 + 2 != 3")

stdin and stdout belong to the protocol (frames in, frames and the result
out); ``print()`` text is evaluation output. See ``errors`` for the classes
raised and docs/sdk.md for the verdict each leads to.
"""

from __future__ import annotations

from .. import errors as _errors
from ..errors import (  # noqa: F401 - re-exported
    JudgeConnectionError,
    JudgeSystemError,
    NotFoundError,
    RejectedError,
    SolutionTimeoutError,
    TetherError,
)
from . import result  # noqa: F401 - module used as ``result.accept()``
from .capability import register_capability, unregister_capability  # noqa: F401
from .declared import ArgumentTypeError, ResultTypeError, Solution, solution  # noqa: F401
from .logsetup import configure_logging  # noqa: F401
from .runner import SolutionRunner  # noqa: F401

__all__ = [
    "SolutionRunner",
    "register_capability",
    "unregister_capability",
    "result",
    "configure_logging",
    "solution",
    "Solution",
    "ArgumentTypeError",
    "ResultTypeError",
] + [name for name in _errors.__all__ if name != "code_to_error"]  # the error classes


def __getattr__(name: str) -> type:
    # SystemError and ConnectionError: the names before the rename.
    return _errors.renamed(__name__, name)
