"""``noj_evaluator_sdk.result``: the ``Result`` class (Neuro OJ's result
writer, see ``tether_sdk.evaluator.result``); the package's ``result`` is its
singleton."""

from tether_sdk.evaluator.result import ResultAlreadyWritten, Result  # noqa: F401

__all__ = ["Result", "ResultAlreadyWritten"]
