"""call_capability: call a function the evaluator registered."""

from __future__ import annotations

from typing import Any

from .. import codec
from .._frames import capability_frame, encode_line, new_id
from ..errors import RejectedError
from . import _runtime
from .errors import (
    CapabilityConnectionError,
    CapabilityError,
    CapabilityNotFoundError,
    CapabilityRejectedError,
)

__all__ = ["call_capability"]


def call_capability(name: str, *args: Any) -> Any:
    """Call the evaluator's capability ``name(*args)`` and return its value.

    Blocks the calling thread until the answer; safe from any thread of the
    solution. Raises CapabilityRejectedError without sending when an argument
    is not transferable, CapabilityNotFoundError, CapabilityError(code=...)
    for other answers (``code == "CallTimeout"`` when the judge's deadline
    for the capability passed), CapabilityConnectionError when the channel is
    closed or no host runs."""
    if not isinstance(name, str) or not name:
        raise TypeError("capability name must be a non-empty str, not %r" % (name,))
    writer, pending = _runtime.writer, _runtime.pending
    if writer is None:
        raise CapabilityConnectionError("not running under the tether solution host")
    call_id = new_id()
    try:
        data = encode_line(capability_frame(call_id, name, codec.encode_args(args)))
    except RejectedError as e:
        raise CapabilityRejectedError(str(e), path=e.path) from None
    waiter = pending.add(call_id)
    try:
        writer.write_line(data)
    except OSError as e:
        pending.discard(call_id)
        raise CapabilityConnectionError("cannot write to the judge: %s" % e) from None
    pending.wait(waiter)
    if waiter.error is not None:
        raise waiter.error
    frame = waiter.frame
    if frame["type"] == "result":
        return frame.get("value")
    code, message, trace = frame.get("code"), frame.get("message", ""), frame.get("trace")
    if not isinstance(message, str):
        message = str(message)
    if code == "NotFound":
        raise CapabilityNotFoundError(message, trace=trace)
    if code == "Rejected":
        raise CapabilityRejectedError(message, trace=trace)
    raise CapabilityError(message, code=code if isinstance(code, str) else "SystemError", trace=trace)
