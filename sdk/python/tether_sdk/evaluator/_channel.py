"""The evaluator's one channel to the judge: frames out on stdout, frames in
on stdin.

Reading (see ``_conduit``): one reader thread, started on first use, reads
stdin, resolves answers by id (the calling thread wakes on its own lock) and
hands ``capability`` frames to the capability workers; it never runs user
code itself. So capabilities and log frames are served whether or not a
call is waiting.

stdout is shared with the problem setter's ``print()``: evaluation output and
``---RESULT---`` travel there too. So that a frame never lands inside a
half-written line, ``sys.stdout`` (when it is still the real stdout) is
replaced by a line-atomic wrapper that passes only whole lines to the real
stream, under the same lock the frames are written with. A trailing line
without newline is written at interpreter exit.
"""

import atexit
import io
import os
import sys
import threading

from .._conduit import Conduit, frame_dispatch
from .._frames import encode_line, error_frame, inspect_frame
from .._streams import WriteOnlyBuffer
from ..errors import JudgeConnectionError, RejectedError

_create_lock = threading.Lock()
_channel = None


def _closed_error():
    return JudgeConnectionError("channel to the judge closed (stdin EOF)")


class _LineAtomicStdout:
    """Text stream that forwards only complete lines to the real stdout
    ``text`` under ``lock``. Safe for concurrent use.

    Text and bytes (``.buffer``, a ``_LineAtomicBuffer``) share one pending
    line, kept as bytes (text encoded with the real stream's encoding and
    errors): whatever is written, a line reaches the real stream only when
    its newline does, so a frame (written under the same lock) always starts
    a line. By design ``flush()`` does not write a pending partial line
    (``print(..., end="", flush=True)``): it is held until its newline, or
    written at interpreter exit (``finish``), since writing it early would let
    the next frame land on the same line. After ``finish`` writes pass
    straight through. The real text stream is set to write_through, so text
    written to ``sys.__stdout__`` directly keeps its order with these bytes."""

    def __init__(self, text, lock):
        self._text = text
        self._raw = text.buffer
        self._lock = lock
        self._partial = []  # bytes of the unfinished line, in pieces
        self._finished = False
        self.buffer = _LineAtomicBuffer(self)
        try:
            text.reconfigure(write_through=True)
        except (AttributeError, OSError, ValueError):
            pass

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError("write() argument must be str, not %s" % type(s).__name__)
        if s:
            self._write_bytes(s.encode(self._text.encoding or "utf-8", self._text.errors or "strict"))
        return len(s)

    def _write_bytes(self, data):
        with self._lock:
            if self._finished:
                self._raw.write(b"".join(self._partial) + data)
                self._partial = []
                return
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                self._partial.append(data)
                return
            head = data[:cut]
            if self._partial:
                head = b"".join(self._partial) + head
            self._partial = [data[cut:]] if cut < len(data) else []
            if not getattr(self._text, "write_through", True):
                self._text.flush()  # text written to the real stream directly goes first
            self._raw.write(head)

    def writelines(self, lines):
        for s in lines:
            self.write(s)

    def flush(self):
        # A partial line stays back: flushing it would let a frame follow it
        # on the same line. Complete lines are flushed.
        with self._lock:
            self._text.flush()

    def finish(self):
        """At exit: write the partial line and keep the lock for good. The
        main thread (the lock is reentrant) still writes and flushes; a
        daemon thread (a capability worker) that would write now waits on the
        lock instead of being frozen by the interpreter's shutdown in the
        middle of a write, holding the lock or the stream's, which would
        deadlock the final flush."""
        self._lock.acquire()
        self._finished = True
        if self._partial:
            self._text.flush()
            self._raw.write(b"".join(self._partial))
            self._partial = []
        self._text.flush()

    def __getattr__(self, name):
        return getattr(self._text, name)


class _LineAtomicBuffer(WriteOnlyBuffer, io.BufferedIOBase):
    """``sys.stdout.buffer`` of the evaluator: bytes take the same
    line-atomic path as text (see _LineAtomicStdout). ``close()`` only
    flushes: the real stdout carries the protocol and stays open."""

    def __init__(self, owner):
        super().__init__()
        self._owner = owner

    def _write_bytes(self, data):
        self._owner._write_bytes(data)

    def flush(self):
        self._owner.flush()

    def fileno(self):
        return self._owner._raw.fileno()

    def isatty(self):
        return self._owner._raw.isatty()

    def __getattr__(self, name):
        return getattr(self._owner._raw, name)


class Channel:
    """Frames to and from the judge. Safe for concurrent use."""

    def __init__(self, stdin_fd, stdout_text):
        self.lock = threading.RLock()
        self._text = stdout_text
        self._out = stdout_text.buffer
        self.pending = Conduit(stdin_fd, frame_dispatch(self._dispatch, self._undecodable), _closed_error)
        self.capability_handler = None  # set by capability.py: fn(frame, raw line)
        self.log_handler = None  # fn(stream, data) for solution log frames

    def start(self):
        self.pending.start("tether-evaluator-reader")

    def write_line(self, data):
        """Write one encoded line; text printed before it is flushed first.
        Raises JudgeConnectionError when stdout is gone."""
        with self.lock:
            try:
                self._text.flush()
                self._out.write(data)
                self._out.flush()
            except (BrokenPipeError, OSError, ValueError) as e:
                raise JudgeConnectionError("cannot write to the judge: %s" % e) from None

    def write_frame(self, frame):
        self.write_line(encode_line(frame))

    def _dispatch(self, frame, line):
        kind = frame.get("type")
        if kind == "result" or kind == "error":
            call_id = frame.get("id")
            if type(call_id) is str:
                self.pending.resolve(call_id, frame)
        elif kind == "capability":
            handler = self.capability_handler
            if handler is not None:
                handler(frame, line)
            else:
                call_id = frame.get("id")
                if type(call_id) is str and call_id:
                    name = frame.get("name")
                    self._reply(error_frame(call_id, "NotFound", "capability %s not registered" % _quoted_name(name)))
        elif kind == "log":
            handler = self.log_handler
            if handler is not None:
                try:
                    handler(frame.get("stream"), frame.get("data"))
                except Exception:  # noqa: BLE001 - a bad log handler must not stop the reader
                    pass

    def _undecodable(self, line, err):
        """A frame whose values break the codec: answer Rejected to whoever
        waits or asked, when its id can be recovered."""
        found = inspect_frame(line)
        if found is None:
            return
        kind, call_id = found
        message = "undecodable %s: %s" % (kind, err)
        if kind in ("result", "error"):
            self.pending.resolve(call_id, {"type": "error", "id": call_id, "code": "Rejected", "message": message})
        elif kind == "capability":
            self._reply(error_frame(call_id, "Rejected", message))

    def _reply(self, frame):
        try:
            self.write_frame(frame)
        except (JudgeConnectionError, RejectedError):
            pass


def _quoted_name(name):
    return "'%s'" % name if isinstance(name, str) else repr(name)


def channel():
    """The process-wide channel, created and started on first use."""
    global _channel
    if _channel is not None:
        return _channel
    with _create_lock:
        if _channel is None:
            stdout = sys.__stdout__
            # A private duplicate of fd 0: sys.stdin stays usable (and
            # closable) by the evaluator without touching the channel.
            ch = Channel(os.dup(0), stdout)
            if sys.stdout is stdout:
                wrapper = _LineAtomicStdout(stdout, ch.lock)
                sys.stdout = wrapper
                atexit.register(wrapper.finish)
            ch.start()
            _channel = ch
    return _channel
