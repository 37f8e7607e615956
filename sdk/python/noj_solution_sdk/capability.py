"""``noj_solution_sdk.capability``: call_capability."""

from tether_sdk.solution.capability import call_capability  # noqa: F401

__all__ = ["call_capability"]
