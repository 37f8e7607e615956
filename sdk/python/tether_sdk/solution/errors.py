"""Errors of the solution side: ``register`` and ``call_capability``."""

from __future__ import annotations

from typing import Optional

__all__ = [
    "FunctionAlreadyRegisteredError",
    "NotRegisteredError",
    "CapabilityError",
    "CapabilityNotFoundError",
    "CapabilityRejectedError",
    "CapabilityConnectionError",
]


class CapabilityError(Exception):
    """A capability call failed. ``code`` is the wire code of the answer
    (``"CallTimeout"`` when the judge's deadline passed, ``"Exception"`` when
    the evaluator's handler raised, ...), ``message`` and ``trace`` its text."""

    def __init__(self, message: str = "", code: Optional[str] = None, trace: Optional[str] = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.trace = trace


class CapabilityNotFoundError(CapabilityError):
    """The evaluator registered no capability of that name (code ``NotFound``)."""

    def __init__(self, message: str = "", code: Optional[str] = "NotFound", trace: Optional[str] = None) -> None:
        super().__init__(message, code, trace)


class CapabilityRejectedError(CapabilityError, ValueError):
    """An argument or the answer is outside the transferable contract, or a
    frame over 1 MiB (code ``Rejected``). Raised before sending when the
    arguments are at fault; ``path`` then names the value."""

    def __init__(self, message: str = "", code: Optional[str] = "Rejected", trace: Optional[str] = None, path: Optional[str] = None) -> None:
        super().__init__(message, code, trace)
        self.path = path


class CapabilityConnectionError(CapabilityError, ConnectionError):
    """The channel to the judge is closed (stdin EOF) or this process is not
    running under a host; ``code`` is None."""

    def __init__(self, message: str = "", code: Optional[str] = None, trace: Optional[str] = None) -> None:
        super().__init__(message, code, trace)


class FunctionAlreadyRegisteredError(Exception):
    """``register`` was given a name that is already registered (Neuro OJ's
    rule: a name is registered once). Raised at import, so the host answers
    every call with the import failure."""


class NotRegisteredError(Exception):
    """Neuro OJ's name for a lookup of a name nobody registered; the host
    itself answers such a call with code ``NotFound``."""
