"""Error classes of the evaluator side of the dual protocol.

The wire codes map onto classes like this (docs/protocol/judge.md, "Error codes")::

    NotFound        -> NotFoundError
    Rejected        -> RejectedError
    CallTimeout     -> SolutionTimeoutError
    Exception       -> SystemError(message + "\\n" + trace)
    anything else   -> SystemError("code: message")
    channel closed  -> ConnectionError   (no frame; raised locally)

Name clashes, on purpose: ``SystemError`` and ``ConnectionError`` here are
tether classes that shadow Python's builtins of the same name when imported
with ``from tether_sdk.errors import *`` (this is what Neuro OJ's SDK names
them). Each also subclasses the builtin it shadows, so ``except SystemError``
catches it whether or not the name was imported; the reverse does not hold, so
catch ``TetherError`` to mean "any failure reported by the protocol".
As in Neuro OJ, ``ConnectionError`` is a ``SystemError``.
"""

import builtins

__all__ = [
    "TetherError",
    "NotFoundError",
    "RejectedError",
    "SolutionTimeoutError",
    "SystemError",
    "ConnectionError",
    "code_to_error",
]


class TetherError(Exception):
    """Base of every protocol error. ``code`` is the wire code (None for
    local failures), ``message`` and ``trace`` the frame's fields."""

    code = None

    def __init__(self, message="", *, code=None, trace=None):
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.trace = trace


class NotFoundError(TetherError):
    """The called function (or capability) is not registered (code ``NotFound``)."""

    code = "NotFound"


class RejectedError(TetherError, ValueError):
    """A value outside the transferable contract, or a frame over 1 MiB
    (code ``Rejected``). When raised by the local codec, ``path`` names the
    offending value, e.g. ``args[2]["x"]``; nothing was sent."""

    code = "Rejected"

    def __init__(self, message="", *, code=None, trace=None, path=None):
        super().__init__(message, code=code, trace=trace)
        self.path = path


class SolutionTimeoutError(TetherError, builtins.TimeoutError):
    """The judge's deadline for the call passed (code ``CallTimeout``)."""

    code = "CallTimeout"


class SystemError(TetherError, builtins.SystemError):  # noqa: A001 - Neuro OJ's name
    """The solution raised (code ``Exception``) or an internal failure
    (``SystemError`` and any other code). Shadows the builtin; see module doc."""

    code = "SystemError"


class ConnectionError(SystemError, builtins.ConnectionError):  # noqa: A001 - Neuro OJ's name
    """The channel to the judge is closed (stdin EOF, runner closed); the call
    may or may not have run. A kind of ``SystemError``, as in Neuro OJ, so
    ``except SystemError`` catches it too. Shadows the builtin; see module doc."""

    code = None


def code_to_error(code, message, trace=None):
    """The exception an evaluator raises for an ``error`` frame."""
    if code == "NotFound":
        return NotFoundError(message, trace=trace)
    if code == "Rejected":
        return RejectedError(message, trace=trace)
    if code == "CallTimeout":
        return SolutionTimeoutError(message, trace=trace)
    if code == "Exception":
        text = message + "\n" + trace if trace else message
        err = SystemError(text, code="Exception", trace=trace)
        err.message = message
        return err
    return SystemError("%s: %s" % (code, message), code=str(code), trace=trace)
