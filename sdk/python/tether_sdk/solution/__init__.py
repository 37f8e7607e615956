"""Solution side of the dual protocol.

User code imports ``register`` and ``call_capability`` from here (or from
``noj_solution_sdk``); the host itself is ``python3 -m
tether_sdk.solution.host --entry FILE`` (see ``host`` for what it does with
stdout, stderr, import errors and EOF).
"""

from . import errors
from ._registry import get_registry, register  # noqa: F401
from .capability import call_capability  # noqa: F401
from .errors import (  # noqa: F401
    CapabilityConnectionError,
    CapabilityError,
    CapabilityNotFoundError,
    CapabilityRejectedError,
    FunctionAlreadyRegisteredError,
    NotRegisteredError,
)

__all__ = ["register", "call_capability", "get_registry"] + errors.__all__
