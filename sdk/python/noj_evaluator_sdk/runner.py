"""``noj_evaluator_sdk.runner``: SolutionRunner and the error classes."""

from tether_sdk.errors import (  # noqa: F401
    NotFoundError,
    RejectedError,
    SolutionTimeoutError,
)
from tether_sdk.errors import JudgeConnectionError as ConnectionError  # noqa: A004 - Neuro OJ's name
from tether_sdk.errors import JudgeSystemError as SystemError  # noqa: A004 - Neuro OJ's name
from tether_sdk.evaluator.runner import SolutionRunner  # noqa: F401

__all__ = ["SolutionRunner", "NotFoundError", "RejectedError", "SolutionTimeoutError", "SystemError", "ConnectionError"]
