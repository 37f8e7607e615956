"""Neuro OJ's solution SDK names, as a thin layer over ``tether_sdk.solution``.

``from noj_solution_sdk import register, call_capability`` and the error
classes; the host is ``python3 -m noj_solution_sdk.host --entry FILE`` (or
``python3 -m noj_solution_sdk``). Its protocol: docs/protocol/judge.md.
"""

from tether_sdk.solution import (  # noqa: F401
    CapabilityConnectionError,
    CapabilityError,
    CapabilityNotFoundError,
    CapabilityRejectedError,
    FunctionAlreadyRegisteredError,
    NotRegisteredError,
    call_capability,
    get_registry,
    register,
)

__all__ = [
    "register",
    "call_capability",
    "FunctionAlreadyRegisteredError",
    "NotRegisteredError",
    "CapabilityError",
    "CapabilityNotFoundError",
    "CapabilityRejectedError",
    "CapabilityConnectionError",
]
