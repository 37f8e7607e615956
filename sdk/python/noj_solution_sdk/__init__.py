"""Neuro OJ's solution SDK names, as a thin layer over ``tether_sdk.solution``.

``from noj_solution_sdk import register, call_capability`` and the
capability error classes; the host is ``python3 -m noj_solution_sdk.host
--entry FILE``.
"""

from tether_sdk.solution import (  # noqa: F401
    CapabilityConnectionError,
    CapabilityError,
    CapabilityNotFoundError,
    CapabilityRejectedError,
    call_capability,
    register,
)

__all__ = [
    "register",
    "call_capability",
    "CapabilityError",
    "CapabilityNotFoundError",
    "CapabilityRejectedError",
    "CapabilityConnectionError",
]
