"""``noj_evaluator_sdk.logging_config``: configure_logging (``print`` and
``logging`` to stderr; stdout keeps only frames and the result)."""

from tether_sdk.evaluator.logsetup import configure_logging  # noqa: F401

__all__ = ["configure_logging"]
