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

import codecs
import io
import os
import sys
import threading

from .._frames import encode_line, log_frame
from .._streams import WriteOnlyBuffer, WriteOnlyStream

# Log text is cut into frames of at most this many characters (x4 bytes of
# UTF-8 plus escaping stays far below the 1 MiB frame cap).
MAX_LOG_CHUNK = 64 * 1024


class LogStream(WriteOnlyStream, io.TextIOBase):
    """A text stream whose writes become ``log`` frames. Whole lines are sent
    as soon as they are complete; a partial line waits for its newline, a
    flush, or the end of the current call. Safe for concurrent use.

    It behaves like a real ``sys.stdout`` for the usual idioms:
    ``.buffer`` is a binary stream (``LogBuffer``) whose bytes are decoded
    (UTF-8 unless ``reconfigure(encoding=...)`` said otherwise, bad bytes
    replaced) and logged the same way, so ``sys.stdout.buffer.write(b"..")``
    and ``io.TextIOWrapper(sys.stdout.buffer, ...)`` work; ``reconfigure``
    accepts TextIOWrapper's keywords (only ``encoding`` and ``errors`` are
    kept, the rest change nothing here); ``detach()`` returns the buffer and
    ``close()`` only flushes: the stream keeps working, the protocol is never
    closed. ``fileno()`` is ``null_fd`` -- a descriptor open on /dev/null
    (fd 1 after ``isolate``), never the protocol's -- so code that hands the
    descriptor on (subprocess, faulthandler, os.write) works and its bytes
    are discarded; without one it raises io.UnsupportedOperation."""

    def __init__(self, name, writer, null_fd=None):
        super().__init__()
        self._name = name
        self._writer = writer
        self._null_fd = null_fd
        self._lock = threading.Lock()
        self._buf = []
        self._size = 0
        self._encoding = "utf-8"
        self._errors = "strict"
        self._buffer = LogBuffer(self)

    @property
    def name(self):
        return "<tether log %s>" % self._name

    @property
    def buffer(self):
        return self._buffer

    @property
    def encoding(self):
        return self._encoding

    @property
    def errors(self):
        return self._errors

    @property
    def line_buffering(self):
        return True  # a complete line is sent at once

    @property
    def write_through(self):
        return False

    @property
    def mode(self):
        return "w"

    def fileno(self):
        if self._null_fd is None:
            raise io.UnsupportedOperation("fileno")
        return self._null_fd

    def reconfigure(self, *, encoding=None, errors=None, newline=None, line_buffering=None, write_through=None):
        """TextIOWrapper.reconfigure's keywords. ``encoding`` is how bytes
        written to ``.buffer`` are decoded (invalid bytes are replaced
        whatever ``errors`` says: a log line never fails the call); text
        written here is logged as is. The other keywords are accepted and
        change nothing."""
        if encoding is not None:
            if not isinstance(encoding, str):
                raise TypeError("reconfigure() argument 'encoding' must be str or None, not %s" % type(encoding).__name__)
            self._buffer._set_encoding(encoding)
            self._encoding = encoding
        if errors is not None:
            if not isinstance(errors, str):
                raise TypeError("reconfigure() argument 'errors' must be str or None, not %s" % type(errors).__name__)
            codecs.lookup_error(errors)  # LookupError for an unknown handler, as TextIOWrapper
            self._errors = errors
        if newline not in (None, "", "\n", "\r", "\r\n"):
            raise ValueError("illegal newline value: %r" % (newline,))
        self.flush()

    def detach(self):
        """The binary buffer. Unlike TextIOWrapper this stream stays usable
        (the common ``io.TextIOWrapper(sys.stdout.detach(), ...)`` works)."""
        self.flush()
        return self._buffer

    def close(self):
        # Closing sys.stdout (a ``with`` block, a wrapper's finalizer) must not
        # break later prints or the host: just flush.
        self.flush()

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


class LogBuffer(WriteOnlyBuffer, io.BufferedIOBase):
    """``LogStream.buffer``: bytes written here are decoded (the stream's
    encoding, invalid bytes replaced; a character split across writes is
    joined) and written to the LogStream as text. Never touches a
    descriptor. Safe for concurrent use."""

    def __init__(self, text):
        super().__init__()
        self._text = text
        self._lock = threading.Lock()
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def _set_encoding(self, encoding):
        info = codecs.lookup(encoding)  # LookupError for an unknown encoding, as TextIOWrapper
        if not getattr(info, "_is_text_encoding", True):
            raise LookupError("%r is not a text encoding" % encoding)
        with self._lock:
            pending = self._decoder.decode(b"", final=True)
            self._decoder = info.incrementaldecoder("replace")
            if pending:
                self._text.write(pending)

    @property
    def name(self):
        return self._text.name

    @property
    def mode(self):
        return "wb"

    def fileno(self):
        return self._text.fileno()

    def _write_bytes(self, data):
        with self._lock:
            text = self._decoder.decode(data)
            if text:
                self._text.write(text)

    def flush(self):
        self._text.flush()


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


def redirect_text(writer, null_fd=1):
    """Replace sys.stdout / sys.stderr with LogStreams; returns both. Their
    fileno() is null_fd: fd 1, which reads /dev/null after ``isolate``
    (stderr's too: the real fd 2 is not collected, and /dev/null is the one
    descriptor certain never to reach the judge)."""
    out, err = LogStream("stdout", writer, null_fd), LogStream("stderr", writer, null_fd)
    sys.stdout, sys.stderr = out, err
    return out, err
