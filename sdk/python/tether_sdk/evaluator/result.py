"""The evaluator's verdict: the result marker then one JSON line
``{"status": S, "score": INT, "details": {...}}`` on stdout, written
together. The marker carries the run's nonce, which the judge gives in
``TETHER_RESULT_NONCE`` (``---RESULT--- NONCE``), so that nothing else the
evaluator prints, a solution's answer included, can pass for its result;
without one (another judge) it is the plain ``---RESULT---``.

``score`` is given in percent (0..100, float) and written as
``round(score * 100)`` (0..10000). A result is written once per process: a
second call raises ``ResultAlreadyWritten`` and writes nothing. Details are
keyword arguments and must be JSON-serializable (finite numbers); a bad one
raises before anything is written, so the evaluator may try again.
Safe to call from any thread (the first writer wins).

``Result`` is Neuro OJ's interface to the same line (``noj_evaluator_sdk``'s
``result`` singleton): ``accept(score=100.0)``, ``wrong_answer(score=0.0,
message=None)``, ``runtime_error(message)``, ``system_error(message)``; other
keyword arguments (and the members of a ``details=`` dict) land in
``details``. See docs/problem.md for the result line.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
from typing import Any, Optional, Union

from ._channel import channel

__all__ = [
    "accept",
    "partially_correct",
    "wrong_answer",
    "runtime_error",
    "system_error",
    "time_limit_exceeded",
    "write",
    "written",
    "Result",
    "ResultAlreadyWritten",
    "MARKER",
]

MARKER = "---RESULT---"
NONCE_ENV = "TETHER_RESULT_NONCE"


def _marker():
    nonce = os.environ.get(NONCE_ENV, "")
    return MARKER + " " + nonce if nonce else MARKER

STATUSES = (
    "Accepted",
    "WrongAnswer",
    "PartiallyCorrect",
    "RuntimeError",
    "TimeLimitExceeded",
    "MemoryLimitExceeded",
    "SystemError",
)

_lock = threading.Lock()
_written = False


class ResultAlreadyWritten(RuntimeError):
    """The result of this evaluation was already written."""


def written() -> bool:
    """True once a result has been written."""
    return _written


# A status of the evaluator's own, passed through by the judge (never
# Accepted): the judge's StatusPattern.
_OWN_STATUS = re.compile(r"[A-Za-z][A-Za-z0-9]{0,63}")


def write(status: str, score: float = 0.0, **details: Any) -> None:
    """Write the result with a status of the enum (the functions below are
    shorthands) or one of the evaluator's own (a plain identifier such as
    ``PartiallyAccepted``, passed through and never Accepted)."""
    _write(status, score, details)


def _write(status, score, details):
    global _written
    if status not in STATUSES and not (isinstance(status, str) and _OWN_STATUS.fullmatch(status)):
        raise ValueError("status %r is neither one of %s nor a status of your own (a letter, then up to 63 "
                         "letters and digits)" % (status, ", ".join(STATUSES)))
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
        raise ValueError("score must be a finite number (percent), not %r" % (score,))
    line = json.dumps(
        {"status": status, "score": int(round(score * 100)), "details": details},
        ensure_ascii=False,
        allow_nan=False,
        separators=(",", ":"),
    )
    data = (_marker() + "\n" + line + "\n").encode("utf-8")
    with _lock:
        if _written:
            raise ResultAlreadyWritten("the result was already written")
        channel().write_line(data)
        _written = True


def _split(args, details, default_score):
    """Positional arguments: a number is the score, a str the message; two
    are (score, message), Neuro OJ's order."""
    if len(args) == 2 and not isinstance(args[0], str):
        details.setdefault("message", args[1])
        args = args[:1]
    if len(args) > 1:
        raise TypeError("expected at most two positional arguments (score, message)")
    score = details.pop("score", default_score)
    if args:
        if isinstance(args[0], str):
            details.setdefault("message", args[0])
        else:
            score = args[0]
    return score


def accept(*args: Union[float, str], **details: Any) -> None:
    """Accepted; score defaults to 100.0."""
    write("Accepted", _split(args, details, 100.0), **details)


def partially_correct(*args: Union[float, str], **details: Any) -> None:
    """PartiallyCorrect; give the score in percent."""
    write("PartiallyCorrect", _split(args, details, 0.0), **details)


def wrong_answer(*args: Union[float, str], **details: Any) -> None:
    """WrongAnswer; score defaults to 0.0, a str argument becomes details.message."""
    write("WrongAnswer", _split(args, details, 0.0), **details)


def runtime_error(message: str = "", **details: Any) -> None:
    """RuntimeError with details.message."""
    details.setdefault("message", message)
    write("RuntimeError", details.pop("score", 0.0), **details)


def system_error(message: str = "", **details: Any) -> None:
    """SystemError with details.message."""
    details.setdefault("message", message)
    write("SystemError", details.pop("score", 0.0), **details)


def time_limit_exceeded(message: str = "", **details: Any) -> None:
    """TimeLimitExceeded with details.message."""
    details.setdefault("message", message)
    write("TimeLimitExceeded", details.pop("score", 0.0), **details)


class Result:
    """Neuro OJ's result writer; ``noj_evaluator_sdk.result`` is one instance.
    Every instance writes the process's one result line: a second write, from
    any instance or function here, raises ``ResultAlreadyWritten`` (a
    RuntimeError). ``score`` is in percent; a str given where the score goes
    is taken as the message."""

    def accept(self, score: Union[float, str] = 100.0, **kwargs: Any) -> None:
        """Accepted; score defaults to 100.0."""
        self._write("Accepted", score, None, kwargs)

    def wrong_answer(self, score: Union[float, str] = 0.0, message: Optional[str] = None, **kwargs: Any) -> None:
        """WrongAnswer; message goes to details.message."""
        self._write("WrongAnswer", score, message, kwargs)

    def runtime_error(self, message: str, **kwargs: Any) -> None:
        """RuntimeError (score 0) with details.message."""
        self._write("RuntimeError", 0.0, message, kwargs)

    def system_error(self, message: str, **kwargs: Any) -> None:
        """SystemError (score 0) with details.message."""
        self._write("SystemError", 0.0, message, kwargs)

    def partially_correct(self, score: Union[float, str] = 0.0, message: Optional[str] = None, **kwargs: Any) -> None:
        """PartiallyCorrect (tether's; not in Neuro OJ's SDK)."""
        self._write("PartiallyCorrect", score, message, kwargs)

    @staticmethod
    def _write(status, score, message, kwargs):
        if isinstance(score, str) and message is None:
            score, message = 0.0 if status != "Accepted" else 100.0, score
        details = kwargs.pop("details", None)
        if details is None:
            details = {}
        elif not isinstance(details, dict):
            raise TypeError("details must be a dict, not %s" % type(details).__name__)
        else:
            details = dict(details)
        details.update(kwargs)
        if message is not None:
            details["message"] = message
        _write(status, score, details)
