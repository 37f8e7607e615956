"""Isolation of the host's stdio from user code.

The protocol runs on private duplicates of fd 0 and fd 1. Afterwards fd 0
reads /dev/null and fd 1 writes to /dev/null, so nothing user code does --
``print()``, ``sys.stdout.write``, ``os.write(1, ...)``, a C extension's
printf, a child process -- can put bytes on the protocol channel or steal
frames from it.

At the Python level ``sys.stdout`` and ``sys.stderr`` become LogStreams that
turn text into ``log`` frames (stream ``stdout`` / ``stderr``); the judge
forwards them to the evaluator and keeps them in the result's logs. Writes
to fd 2 below Python (``os.write(2, ...)``, C code, a crash) go to the real
stderr, which the judge does not collect (debugging only).
"""

import io
import os
import sys
import threading

from .._frames import encode_line, log_frame

# Log text is cut into frames of at most this many characters (x4 bytes of
# UTF-8 plus escaping stays far below the 1 MiB frame cap).
MAX_LOG_CHUNK = 64 * 1024


class LogStream(io.TextIOBase):
    """A text stream whose writes become ``log`` frames. Whole lines are sent
    as soon as they are complete; a partial line waits for its newline, a
    flush, or the end of the current call. Safe for concurrent use."""

    def __init__(self, name, writer):
        super().__init__()
        self._name = name
        self._writer = writer
        self._lock = threading.Lock()
        self._buf = []
        self._size = 0

    @property
    def name(self):
        return "<tether log %s>" % self._name

    @property
    def encoding(self):
        return "utf-8"

    @property
    def errors(self):
        return "strict"

    def writable(self):
        return True

    def isatty(self):
        return False

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError("write() argument must be str, not %s" % type(s).__name__)
        if not s:
            return 0
        with self._lock:
            self._buf.append(s)
            self._size += len(s)
            if "\n" in s or self._size >= MAX_LOG_CHUNK:
                text = "".join(self._buf)
                cut = len(text) if self._size >= MAX_LOG_CHUNK else text.rindex("\n") + 1
                self._buf = [text[cut:]] if cut < len(text) else []
                self._size = len(text) - cut
                self._emit(text[:cut])
        return len(s)

    def flush(self):
        if not self._buf:
            return  # nothing to send; a racing write is flushed by its own newline or the next flush
        with self._lock:
            if self._buf:
                text = "".join(self._buf)
                self._buf, self._size = [], 0
                self._emit(text)

    def _emit(self, text):
        for i in range(0, len(text), MAX_LOG_CHUNK):
            chunk = text[i : i + MAX_LOG_CHUNK]
            try:
                self._writer.write_line(encode_line(log_frame(self._name, chunk.encode("utf-8", "replace").decode("utf-8"))))
            except Exception:  # noqa: BLE001 - a lost log line must never fail the user's call
                pass


class ProtocolFiles:
    """The private protocol channel: ``in_fd`` (read with os.read, see
    ``_conduit.LineReader``) and ``out`` (buffered binary writer)."""

    def __init__(self, in_fd, out):
        self.in_fd = in_fd
        self.out = out


def isolate():
    """Move the protocol to private fds and point fds 0/1 at /dev/null.
    Returns ProtocolFiles. Call once, before any user code runs."""
    sys.stdout.flush()
    in_fd = os.dup(0)
    out_fd = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    for fd in (in_fd, out_fd):
        os.set_inheritable(fd, False)  # children of user code must not inherit the channel
    out = os.fdopen(out_fd, "wb", buffering=1 << 16)
    sys.stdin = open(os.devnull, "r")
    return ProtocolFiles(in_fd, out)


def redirect_text(writer):
    """Replace sys.stdout / sys.stderr with LogStreams; returns both."""
    out, err = LogStream("stdout", writer), LogStream("stderr", writer)
    sys.stdout, sys.stderr = out, err
    return out, err
