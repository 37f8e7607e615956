"""Frame building and line reading shared by both SDK halves.

Frames are built by string concatenation around payloads that the codec has
already encoded, so a value is serialized exactly once.
"""

import json
import os
import threading

from .errors import RejectedError

MAX_FRAME = 1 << 20  # 1,048,576 bytes: soft cap on one frame (dual.md)
MAX_LINE = 4 << 20  # the judge's line buffer; longer lines are skipped

_quote = json.JSONEncoder(ensure_ascii=False).encode


def quote(s):
    """JSON string literal of s."""
    return _quote(s)


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


def read_lines(fd, max_line=MAX_LINE, chunk=1 << 16):
    """Yield lines (bytes, without the newline) read from file descriptor fd
    until EOF. A final line without newline counts. A line longer than
    max_line is skipped whole without holding more than max_line bytes;
    reading resumes at the next line.

    Reads with os.read on a raw fd, not through a buffered file object: a
    daemon thread blocked inside a BufferedReader holds its lock, and the
    interpreter aborts at exit when it tries to take that lock."""
    read = os.read
    buf = b""
    skipping = False
    while True:
        data = read(fd, chunk)
        if not data:
            if buf and not skipping:
                yield buf
            return
        buf += data
        start = 0
        while True:
            nl = buf.find(b"\n", start)
            if nl < 0:
                break
            if skipping:
                skipping = False
            else:
                yield buf[start:nl]
            start = nl + 1
        buf = buf[start:]
        if len(buf) > max_line:
            buf = b""
            skipping = True
