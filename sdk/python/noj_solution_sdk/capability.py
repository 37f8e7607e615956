"""``noj_solution_sdk.capability``: call_capability and its error classes."""

from tether_sdk.solution.capability import call_capability  # noqa: F401
from tether_sdk.solution.errors import (  # noqa: F401
    CapabilityConnectionError,
    CapabilityError,
    CapabilityNotFoundError,
    CapabilityRejectedError,
)

__all__ = [
    "call_capability",
    "CapabilityError",
    "CapabilityNotFoundError",
    "CapabilityRejectedError",
    "CapabilityConnectionError",
]
