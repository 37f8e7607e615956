"""Frame building and line reading shared by both SDK halves.

Frames are built by string concatenation around payloads that the codec has
already encoded, so a value is serialized exactly once.
"""

import json
import os
import random
import threading

from .errors import RejectedError

MAX_FRAME = 1 << 20  # 1,048,576 bytes: soft cap on one frame (docs/protocol/judge.md)
MAX_LINE = 4 << 20  # the judge's line buffer; longer lines are skipped

# The C function JSONEncoder(ensure_ascii=False).encode calls for a str.
quote = json.encoder.encode_basestring

# Call and capability ids: 128 random bits as 32 hex digits (uuid4-sized).
# A private generator seeded from the OS: no system call per id, and the C
# getrandbits is atomic under the GIL, so it is safe from any thread.
_random_bits = random.Random(os.urandom(32)).getrandbits


def new_id():
    """A fresh call id: 32 lowercase hex digits."""
    return "%032x" % _random_bits(128)


def check_frame_size(n):
    """RejectedError with the protocol's text when a frame of n bytes is too big."""
    if n > MAX_FRAME:
        raise RejectedError("frame size %d > %d" % (n, MAX_FRAME))


def call_frame(call_id, fn, args_json, timeout_ms=None):
    extra = "" if timeout_ms is None else ',"timeout_ms":%d' % timeout_ms
    return '{"type":"call","id":%s,"fn":%s,"args":%s%s}' % (quote(call_id), quote(fn), args_json, extra)


def capability_frame(call_id, name, args_json):
    return '{"type":"capability","id":%s,"name":%s,"args":%s}' % (quote(call_id), quote(name), args_json)


def result_frame(call_id, value_json):
    return '{"type":"result","id":%s,"value":%s}' % (quote(call_id), value_json)


def error_frame(call_id, code, message, trace=None):
    tail = "" if trace is None else ',"trace":' + quote(trace)
    return '{"type":"error","id":%s,"code":%s,"message":%s%s}' % (quote(call_id), quote(code), quote(message), tail)


def log_frame(stream, data):
    return '{"type":"log","stream":%s,"data":%s}' % (quote(stream), quote(data))


def encode_line(frame):
    """UTF-8 bytes of a frame plus newline, size-checked (RejectedError)."""
    data = frame.encode("utf-8")
    check_frame_size(len(data))
    return data + b"\n"


class FrameWriter:
    """Writes whole lines to a binary stream, one lock around write+flush so
    concurrent writers never interleave. Safe for concurrent use."""

    def __init__(self, stream, lock=None):
        self._stream = stream
        self.lock = lock if lock is not None else threading.Lock()

    def write_line(self, data):
        with self.lock:
            self._stream.write(data)
            self._stream.flush()

    def write_frame(self, frame):
        self.write_line(encode_line(frame))

