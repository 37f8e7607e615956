"""``noj_evaluator_sdk.capability``: register_capability."""

from tether_sdk.evaluator.capability import register_capability, unregister_capability  # noqa: F401

__all__ = ["register_capability", "unregister_capability"]
