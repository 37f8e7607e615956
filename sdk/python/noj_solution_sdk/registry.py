"""``noj_solution_sdk.registry``: register, get_registry and their errors
(a name is registered once; see ``tether_sdk.solution._registry``)."""

from tether_sdk.solution._registry import get_registry, register  # noqa: F401
from tether_sdk.solution.errors import FunctionAlreadyRegisteredError, NotRegisteredError  # noqa: F401

__all__ = ["register", "get_registry", "FunctionAlreadyRegisteredError", "NotRegisteredError"]
