"""One reader per protocol fd, and the table of threads waiting for answers.

A single daemon thread (``Conduit.start``) reads the fd and hands every line
to ``dispatch`` in order; ``dispatch`` resolves answers by id through
``resolve`` (the waiting thread wakes on its own lock) and passes other
frames on (capability requests to workers, calls to the host's main thread).
No thread other than the reader ever reads, nothing polls, and the fd is
always drained, so the judge's writes never stall on us.

At EOF (or ``close``) every waiter, and every later ``add``, fails with
``closed_error()``; the reader stops and ``on_close`` runs on it. All methods are safe for
concurrent use.
"""

import os
import threading

from . import codec
from ._frames import MAX_LINE
from .errors import RejectedError

_allocate = threading.Lock


class Waiter:
    """One thread's wait for one answer: ``frame`` or ``error`` once done."""

    __slots__ = ("frame", "error", "done", "_gate")

    def __init__(self):
        self.frame = None
        self.error = None
        self.done = False
        self._gate = _allocate()
        self._gate.acquire()


class LineReader:
    """Lines (bytes, no newline) from fd; a final line without newline
    counts, lines over max_line are skipped whole. Reads with os.read on the
    raw fd (a thread blocked in a BufferedReader holds its lock, which aborts
    the interpreter at exit). For one thread only."""

    def __init__(self, fd, max_line=MAX_LINE):
        self.fd = fd
        self.max_line = max_line
        self._buf = b""
        self._pos = 0
        self._skipping = False
        self._skip_next = False
        self._eof = False

    def readline(self):
        """The next line; None at EOF."""
        while True:
            buf = self._buf
            nl = buf.find(b"\n", self._pos)
            if nl >= 0:
                start = self._pos
                self._pos = nl + 1
                if self._skipping:
                    self._skipping = False
                    continue
                return buf[start:nl]
            if self._skip_next:
                self._skip_next = False
                self._skipping = True
            if self._eof:
                rest = buf[self._pos :]
                self._buf, self._pos = b"", 0
                if rest and not self._skipping:
                    return rest
                return None
            data = os.read(self.fd, 1 << 16)
            if not data:
                self._eof = True
                continue
            if self._pos < len(buf):
                data = buf[self._pos :] + data
            self._pos = 0
            last = data.rfind(b"\n")
            if len(data) - last - 1 > self.max_line:
                # The unfinished line is already too long: drop it now and
                # skip the rest of it once the complete lines before it are read.
                data = data[: last + 1]
                self._skip_next = True
            self._buf = data


def frame_dispatch(on_frame, undecodable):
    """A Conduit's dispatch that decodes each line: ``on_frame(frame, line)``
    for a frame, ``undecodable(line, err)`` for a frame whose values break
    the codec; a line that is not a frame (plain text) is passed over."""

    def dispatch(line):
        try:
            frame = codec.decode_frame(line)
        except RejectedError as e:
            undecodable(line, e)
            return
        if frame is not None:
            on_frame(frame, line)

    return dispatch


class Conduit:
    """The pending-answer table, filled by the one reader thread."""

    def __init__(self, fd, dispatch, closed_error, on_close=None):
        self._lock = threading.Lock()
        self._waiters = {}  # call id -> Waiter
        self._closed = None
        self._closed_error = closed_error  # fn() -> exception for EOF
        self._on_close = on_close
        self.dispatch = dispatch
        self.lines = LineReader(fd)
        self._thread = None

    @property
    def closed(self):
        """The close error once the fd reached EOF (or ``close`` ran), else None."""
        return self._closed

    def start(self, name):
        """Start the reader thread (a daemon: an evaluator that returns from
        main exits even while the judge keeps its stdin open)."""
        self._thread = threading.Thread(target=self._read, name=name, daemon=True)
        self._thread.start()

    def add(self, call_id):
        """A Waiter for call_id's answer; raises the close error once closed."""
        w = Waiter()
        with self._lock:
            if self._closed is not None:
                raise self._closed_error()
            self._waiters[call_id] = w
        return w

    def discard(self, call_id):
        with self._lock:
            self._waiters.pop(call_id, None)

    def resolve(self, call_id, frame):
        """Hand frame to the waiter of call_id; False if nobody waits for it."""
        with self._lock:
            w = self._waiters.pop(call_id, None)
        if w is None:
            return False
        w.frame = frame
        w.done = True
        w._gate.release()
        return True

    def fail_ids(self, ids, error_fn):
        """Fail the waiters of ids with error_fn() each."""
        with self._lock:
            failed = [w for w in (self._waiters.pop(i, None) for i in ids) if w is not None]
        for w in failed:
            w.error = error_fn()
            w.done = True
            w._gate.release()

    @staticmethod
    def wait(w):
        """Block until w is resolved or failed (interruptible by signals)."""
        w._gate.acquire()

    def close(self):
        """Fail every waiter and every later add with the close error (once)."""
        with self._lock:
            if self._closed is not None:
                return
            self._closed = self._closed_error()
            waiters = list(self._waiters.values())
            self._waiters.clear()
        for w in waiters:
            w.error = self._closed_error()
            w.done = True
            w._gate.release()

    def _read(self):
        readline = self.lines.readline
        dispatch = self.dispatch
        try:
            while True:
                try:
                    line = readline()
                except OSError:
                    line = None  # the fd is gone: as EOF
                if line is None:
                    break
                try:
                    dispatch(line)
                except Exception:  # noqa: BLE001 - one bad frame must not stop the reading
                    pass
                if self._closed is not None:
                    break  # closed by dispatch (a shutdown frame): read no more
        finally:
            self.close()
            if self._on_close is not None:
                self._on_close()
