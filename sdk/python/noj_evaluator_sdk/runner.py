"""``noj_evaluator_sdk.runner``: SolutionRunner and the error classes."""

from tether_sdk.errors import (  # noqa: F401
    ConnectionError,
    NotFoundError,
    RejectedError,
    SolutionTimeoutError,
    SystemError,
)
from tether_sdk.evaluator.runner import SolutionRunner  # noqa: F401

__all__ = ["SolutionRunner", "NotFoundError", "RejectedError", "SolutionTimeoutError", "SystemError", "ConnectionError"]
