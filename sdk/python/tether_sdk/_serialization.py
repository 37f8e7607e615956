"""Neuro OJ's serialization functions (``noj_*_sdk.serialization``) over the
codec, shared by both halves; each half maps a refusal to its own error class.

``encode_value`` gives the JSON structure (bytes as ``{"__bytes__": base64}``),
``decode_value`` takes one back; both go through the codec's text, so every
rule of ``codec`` (and docs/protocol/judge.md) applies to them.
"""

import json

from . import codec
from ._frames import MAX_FRAME
from .errors import RejectedError

MAX_FRAME_BYTES = MAX_FRAME


def encode_value(value):
    """The JSON-ready structure of a transferable value (RejectedError otherwise)."""
    return json.loads(codec.encode(value))


def decode_value(value):
    """The Python value of a decoded JSON structure (bytes wrappers become bytes)."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise RejectedError("value: %s" % e) from None
    return codec.decode(text)


def estimate_frame_size(value):
    """Bytes of value's JSON text: exact, so an upper bound of its share of a frame."""
    return len(codec.encode(value).encode("utf-8"))


def validate_type(value, path, error):
    """Raise error(message) unless value is transferable; the message names the path."""
    try:
        codec.encode(value, root=path)
    except RejectedError as e:
        raise error(str(e)) from None


def check_frame_size(frame_str, error):
    """Raise error(message) when frame_str's UTF-8 bytes are over MAX_FRAME_BYTES."""
    n = len(frame_str.encode("utf-8")) if isinstance(frame_str, str) else len(frame_str)
    if n > MAX_FRAME_BYTES:
        raise error("frame size %d > %d" % (n, MAX_FRAME_BYTES))
