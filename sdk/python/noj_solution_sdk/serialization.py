"""``noj_solution_sdk.serialization``: Neuro OJ's transferable-value
functions over tether's codec (see ``noj_evaluator_sdk.serialization``);
refusals raise ``CapabilityRejectedError`` naming the value's path."""

from tether_sdk import _serialization
from tether_sdk._serialization import MAX_FRAME_BYTES, decode_value, encode_value  # noqa: F401
from tether_sdk.solution.errors import CapabilityRejectedError

__all__ = ["MAX_FRAME_BYTES", "check_frame_size", "decode_value", "encode_value", "validate_type"]


def validate_type(value, path="<root>"):
    """Raise CapabilityRejectedError unless value is transferable."""
    _serialization.validate_type(value, path, CapabilityRejectedError)


def check_frame_size(frame_str):
    """Raise CapabilityRejectedError when the frame's UTF-8 text is over MAX_FRAME_BYTES."""
    _serialization.check_frame_size(frame_str, CapabilityRejectedError)
