"""``noj_evaluator_sdk.serialization``: Neuro OJ's transferable-value
functions over tether's codec (``tether_sdk.codec``; the values are those of
docs/protocol/judge.md, "Transferable values"). Failures raise
``RejectedError`` naming the value's path."""

from tether_sdk import _serialization
from tether_sdk._serialization import MAX_FRAME_BYTES, decode_value, encode_value, estimate_frame_size  # noqa: F401
from tether_sdk.errors import RejectedError

__all__ = ["MAX_FRAME_BYTES", "check_frame_size", "decode_value", "encode_value", "estimate_frame_size",
           "validate_type"]


def validate_type(value, path="<root>"):
    """Raise RejectedError unless value is transferable."""
    _serialization.validate_type(value, path, RejectedError)


def check_frame_size(frame_str):
    """Raise RejectedError when the frame's UTF-8 text is over MAX_FRAME_BYTES."""
    _serialization.check_frame_size(frame_str, RejectedError)
