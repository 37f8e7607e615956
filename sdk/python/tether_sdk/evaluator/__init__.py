"""Evaluator side of the dual protocol, for the problem setter's ``evaluate.py``.

    from tether_sdk.evaluator import SolutionRunner, result, register_capability

    runner = SolutionRunner()
    if runner.call("add", 1, 2) == 3:
        result.accept()
    else:
        result.wrong_answer("1 + 2 != 3")

stdin and stdout belong to the protocol (frames in, frames and the result
out); ``print()`` text is evaluation output. See ``errors`` for the classes
raised (``SystemError`` and ``ConnectionError`` shadow the builtins).
"""

from ..errors import (  # noqa: F401 - re-exported
    ConnectionError,
    NotFoundError,
    RejectedError,
    SolutionTimeoutError,
    SystemError,
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
    "TetherError",
    "NotFoundError",
    "RejectedError",
    "SolutionTimeoutError",
    "SystemError",
    "ConnectionError",
    "solution",
    "Solution",
    "ArgumentTypeError",
    "ResultTypeError",
]
