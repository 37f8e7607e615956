"""Error classes of the evaluator side of the dual protocol.

The wire codes map onto classes like this (docs/protocol/judge.md, "Error codes";
docs/sdk.md has the verdict each leads to)::

    NotFound        -> NotFoundError
    Rejected        -> RejectedError
    CallTimeout     -> SolutionTimeoutError
    Exception       -> JudgeSystemError(message + "\\n" + trace)
    anything else   -> JudgeSystemError("code: message")
    channel closed  -> JudgeConnectionError   (no frame; raised locally)

No name here shadows a Python builtin: Neuro OJ's SDK calls the last two
``SystemError`` and ``ConnectionError``, and those names live on in the
``noj_evaluator_sdk`` modules only (as aliases of these classes). Each class
still subclasses the builtin Neuro OJ's name shadowed, so an evaluator written
for Neuro OJ that catches the builtin ``SystemError`` keeps working. Catch
``TetherError`` to mean "any failure reported by the protocol". As in Neuro
OJ, ``JudgeConnectionError`` is a ``JudgeSystemError``.
"""

from __future__ import annotations

import builtins
import warnings
from typing import Optional

__all__ = [
    "TetherError",
    "NotFoundError",
    "RejectedError",
    "SolutionTimeoutError",
    "JudgeSystemError",
    "JudgeConnectionError",
    "code_to_error",
]


class TetherError(Exception):
    """Base of every protocol error. ``code`` is the wire code (None for
    local failures), ``message`` and ``trace`` the frame's fields."""

    code: Optional[str] = None

    def __init__(self, message: str = "", *, code: Optional[str] = None, trace: Optional[str] = None) -> None:
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

    def __init__(
        self,
        message: str = "",
        *,
        code: Optional[str] = None,
        trace: Optional[str] = None,
        path: Optional[str] = None,
    ) -> None:
        super().__init__(message, code=code, trace=trace)
        self.path = path


class SolutionTimeoutError(TetherError, builtins.TimeoutError):
    """The judge's deadline for the call passed (code ``CallTimeout``)."""

    code = "CallTimeout"


class JudgeSystemError(TetherError, builtins.SystemError):
    """The solution raised (code ``Exception``: the message is the
    solution's ``str(e)`` and its trace, which ends with the exception's
    class, e.g. ``IndexError: list index out of range``) or an internal
    failure (code ``SystemError`` and any other). Neuro OJ's name:
    ``noj_evaluator_sdk.runner.SystemError``."""

    code = "SystemError"


class JudgeConnectionError(JudgeSystemError, builtins.ConnectionError):
    """The channel to the judge is closed (stdin EOF, runner closed); the call
    may or may not have run. A kind of ``JudgeSystemError``, as in Neuro OJ.
    Neuro OJ's name: ``noj_evaluator_sdk.runner.ConnectionError``."""

    code = None


# Neuro OJ's names, kept importable from the tether modules for evaluators
# written before the rename (not in __all__, so ``import *`` never shadows
# a builtin); a PendingDeprecationWarning (hidden by default) says so.
RENAMED = {"SystemError": JudgeSystemError, "ConnectionError": JudgeConnectionError}


def renamed(module: str, name: str) -> type:
    """The class an old name of module stands for (module ``__getattr__``)."""
    cls = RENAMED.get(name)
    if cls is None:
        raise AttributeError("module %r has no attribute %r" % (module, name))
    warnings.warn(
        "%s.%s is now %s (noj_evaluator_sdk keeps Neuro OJ's name)" % (module, name, cls.__name__),
        PendingDeprecationWarning,
        stacklevel=3,
    )
    return cls


def __getattr__(name: str) -> type:
    return renamed(__name__, name)


def code_to_error(code: str, message: str, trace: Optional[str] = None) -> TetherError:
    """The exception an evaluator raises for an ``error`` frame."""
    if code == "NotFound":
        return NotFoundError(message, trace=trace)
    if code == "Rejected":
        return RejectedError(message, trace=trace)
    if code == "CallTimeout":
        return SolutionTimeoutError(message, trace=trace)
    if code == "Exception":
        text = message + "\n" + trace if trace else message
        err = JudgeSystemError(text, code="Exception", trace=trace)
        err.message = message
        return err
    return JudgeSystemError("%s: %s" % (code, message), code=str(code), trace=trace)
