"""Frame building and line reading shared by both SDK halves.

Frames are built by string concatenation around payloads that the codec has
already encoded, so a value is serialized exactly once.
"""

import json
import os
import random
import re
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


# Tokens of a frame line as inspect() reads it: a string, or a character
# that structures the top-level object. Inside a member's value only strings
# and brackets matter.
_TOP_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},:]')
_NESTED_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_CLOSING = {"[": "]", "{": "}"}


def inspect_frame(line):
    """``(type, id)`` of a frame line the codec refused, read without
    decoding its values, so that whatever made it undecodable (a NaN, an
    integer over the digit limit, nesting deeper than any parser's own
    limit) its call can still be answered Rejected. None unless the line is
    one JSON object whose last ``type`` member is a string and whose last
    ``id`` is a non-empty string (a repeated member: the last counts, as in
    ``json.loads``)."""
    if isinstance(line, (bytes, bytearray)):
        text = bytes(line).decode("utf-8", "replace")
    else:
        text = line
    text = text.strip(" \t\r\n")
    if not text.startswith("{") or not text.endswith("}"):
        return None
    found = {}
    key = None  # the member whose value comes next, when it is type or id
    pos, expect_key = 1, True
    while True:
        m = _TOP_TOKEN.search(text, pos)
        if m is None:
            return None
        tok, pos = m.group(), m.end()
        c = tok[0]
        if c == '"':
            if expect_key:
                key = tok if "\\" not in tok else json.dumps(_string_token(tok))
            elif key is not None:
                found[key] = tok
        elif c == ":":
            expect_key = False
            key = key if key in ('"type"', '"id"') else None
            if key is not None:
                found[key] = None  # a value that is not a string unless a string token follows
        elif c == ",":
            expect_key, key = True, None
        elif c == "}":
            break
        elif c in "[{":
            if key is not None:
                found[key] = None
            pos = _skip_container(text, pos, c)
            if pos < 0:
                return None
        else:
            return None
    if text[pos:].strip():
        return None
    kind, call_id = _string_token(found.get('"type"')), _string_token(found.get('"id"'))
    if kind is None or not call_id:
        return None
    return kind, call_id


def _skip_container(text, pos, opener):
    """Index after the container whose opener ends at pos, or -1: a stack
    of brackets, not a recursion."""
    stack = [_CLOSING[opener]]
    while stack:
        m = _NESTED_TOKEN.search(text, pos)
        if m is None:
            return -1
        tok, pos = m.group(), m.end()
        c = tok[0]
        if c in "[{":
            stack.append(_CLOSING[c])
        elif c in "]}":
            if stack.pop() != c:
                return -1
    return pos


def _string_token(tok):
    if tok is None:
        return None
    try:
        v = json.loads(tok)
        v.encode("utf-8")  # no lone surrogate: an id comes back exactly as sent
    except (ValueError, UnicodeEncodeError):
        return None
    return v


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

