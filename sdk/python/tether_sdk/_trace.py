"""Sanitized tracebacks and messages: absolute paths cut to file names."""

import re
import traceback

MAX_MESSAGE = 64 * 1024
MAX_TRACE = 256 * 1024

# The quoted file of a traceback line may hold spaces: cut it whole.
_TRACE_FILE = re.compile(r'File "(?:[^"\n]*[\\/])?([^"\\/\n]*)"')
# A bare absolute path (not part of a URL or a fraction like 1/2): keep only
# its last component.
_ABS_PATH = re.compile(r"(?<![\w.:/\\-])(?:[A-Za-z]:)?[\\/](?:[^\s\"'\\/<>:,;()\[\]]+[\\/])*([^\s\"'\\/<>:,;()\[\]]+)")


def sanitize(text):
    """Cut every absolute path in text down to its file name."""
    return _ABS_PATH.sub(r"\1", _TRACE_FILE.sub(r'File "\1"', text))


def clip(text, limit):
    if len(text) <= limit:
        return text
    return text[:limit] + "... (%d more characters)" % (len(text) - limit)


def exception_line(exc):
    """``Name: message`` (just ``Name`` when the message is empty), sanitized."""
    msg = sanitize(str(exc))
    name = type(exc).__name__
    return "%s: %s" % (name, msg) if msg else name


def format_trace(exc, skip=0):
    """Sanitized traceback of exc: starts with ``Traceback (most recent call
    last):``, ends with ``Name: message``. skip drops that many outer frames
    (the SDK's own dispatch frames); importlib's frozen frames are left out."""
    tb = exc.__traceback__
    for _ in range(skip):
        if tb is None:
            break
        tb = tb.tb_next
    frames = [f for f in traceback.extract_tb(tb) if not f.filename.startswith("<frozen importlib")]
    lines = ["Traceback (most recent call last):\n"]
    lines.extend(traceback.format_list(frames))
    body = sanitize("".join(lines))
    return clip(body, MAX_TRACE) + exception_line(exc)


def exception_message(exc, limit=MAX_MESSAGE, marked=True):
    """str(exc), sanitized and clipped; marked=False cuts it at exactly limit
    characters, with no note of what was cut (capability messages: dual.md)."""
    text = sanitize(str(exc))
    return clip(text, limit) if marked else text[:limit]
