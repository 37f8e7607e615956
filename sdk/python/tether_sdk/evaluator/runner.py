"""SolutionRunner: call the solution's functions through the judge."""

from __future__ import annotations

import threading
from typing import Any, Optional

from .. import codec
from .._frames import call_frame, encode_line, new_id
from ..errors import JudgeConnectionError, RejectedError, code_to_error
from ._channel import channel

__all__ = ["SolutionRunner"]


class SolutionRunner:
    """Calls functions of the solution. Thread-safe: any number of threads may
    ``call`` at once; each call blocks its own thread until the response.

    Only the judge keeps time: ``timeout_ms`` (a positive int) travels in the
    frame and the judge answers ``CallTimeout`` when it passes; without it the
    problem's ``call_timeout_ms`` applies. The SDK itself never times out.
    """

    def __init__(self) -> None:
        self._channel = channel()
        self._lock = threading.Lock()
        self._inflight = set()
        self._closed = False

    def call(self, fn: str, *args: Any, timeout_ms: Optional[int] = None) -> Any:
        """Call ``fn(*args)`` in the solution and return its decoded value.

        Raises RejectedError before sending anything when an argument is not
        transferable (the message names it: ``args[1]["k"]: ...``) or the
        frame would exceed 1 MiB; NotFoundError, SolutionTimeoutError,
        JudgeSystemError from the solution's or the judge's answer;
        JudgeConnectionError when the channel closes or the runner was closed.
        """
        if not isinstance(fn, str) or not fn:
            raise TypeError("fn must be a non-empty str, not %r" % (fn,))
        if timeout_ms is not None and (type(timeout_ms) is not int or timeout_ms <= 0):
            raise ValueError("timeout_ms must be a positive int or None, not %r" % (timeout_ms,))
        call_id = new_id()
        data = encode_line(call_frame(call_id, fn, codec.encode_args(args), timeout_ms))
        ch = self._channel
        with self._lock:
            if self._closed:
                raise JudgeConnectionError("runner is closed")
            self._inflight.add(call_id)
        pending = ch.pending
        try:
            waiter = pending.add(call_id)
            try:
                ch.write_line(data)
                pending.wait(waiter)
            finally:
                if not waiter.done:
                    pending.discard(call_id)
        finally:
            with self._lock:
                self._inflight.discard(call_id)
        if waiter.error is not None:
            raise waiter.error
        frame = waiter.frame
        if frame["type"] == "result":
            if "value" not in frame:
                raise RejectedError("result frame without a value")
            return frame["value"]
        return _error_of(frame)

    def close(self) -> None:
        """Stop this runner: its pending calls and every later call raise
        JudgeConnectionError. Safe to call twice and from any thread. The channel
        itself stays open (other runners, capabilities, the result)."""
        with self._lock:
            self._closed = True
            ids = list(self._inflight)
        self._channel.pending.fail_ids(ids, _runner_closed)

    def __enter__(self) -> SolutionRunner:
        return self

    def __exit__(self, *exc: object) -> bool:
        self.close()
        return False


def _runner_closed():
    return JudgeConnectionError("runner closed")


def _error_of(frame):
    code = frame.get("code")
    message = frame.get("message")
    trace = frame.get("trace")
    if not isinstance(message, str):
        message = "" if message is None else str(message)
    if trace is not None and not isinstance(trace, str):
        trace = str(trace)
    raise code_to_error(code if isinstance(code, str) else "SystemError", message, trace)
