"""Reading one protocol fd from many threads without a reader thread in the
common path (leader/follower).

Whoever waits reads: a thread waiting for a response (or, in the host, for
the next call) takes the *reading role* when nobody holds it, reads lines
and dispatches them itself until its own wait is over, then gives the role
up and wakes one sleeping waiter to take it over. A waiter that finds the
role taken sleeps on its own pre-acquired lock until the holder resolves it
or promotes it. So a lone caller sends, reads its own answer and returns
with no thread switch at all; a hand-off happens only when another thread's
answer arrives.

Waking a holder that is blocked reading needs a wake pipe: with
``wakeable=True`` the holder polls the fd and the pipe before reading. Both
ends need it: an idle reader (``serve_idle``, a daemon thread that drains the
fd while nobody waits, so the judge's writes never stall) must yield to a
thread that starts waiting, and ``SolutionRunner.close`` fails a call whose
thread may be the one reading.

All methods are safe for concurrent use. ``dispatch(line)`` runs on the
role holder's thread, outside the lock, one line at a time.
"""

import os
import select
import threading
import time

from ._frames import MAX_LINE

_allocate = threading.Lock


class Waiter:
    """One wait: done once resolved (frame or error) or, for a waiter that
    is not a call (the host's main loop, the idle reader), once woken."""

    __slots__ = ("done", "frame", "error", "gate", "yields")

    def __init__(self, yields=False):
        self.done = False
        self.frame = None
        self.error = None
        self.gate = None  # created on the first sleep
        self.yields = yields  # holder gives up the role as soon as someone sleeps


class LineReader:
    """Lines (bytes, no newline) from fd; a final line without newline
    counts, lines over max_line are skipped whole. Reads with os.read on the
    raw fd (a thread blocked in a BufferedReader holds its lock, which aborts
    the interpreter at exit). Not safe for concurrent use: only the role
    holder reads. An exception inside a read leaves the state consistent."""

    def __init__(self, fd, max_line=MAX_LINE, wake_fd=None):
        self.fd = fd
        self.max_line = max_line
        self._buf = b""
        self._pos = 0
        self._skipping = False
        self._skip_next = False
        self._eof = False
        self._wake_fd = wake_fd
        self._poll = None
        if wake_fd is not None:
            self._poll = select.poll()
            self._poll.register(fd, select.POLLIN)
            self._poll.register(wake_fd, select.POLLIN)

    def readline(self):
        """The next line; None at EOF; WOKEN when the wake pipe was poked."""
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
            if self._poll is not None:
                ready = self._poll.poll()
                if any(fd == self._wake_fd for fd, _ in ready):
                    os.read(self._wake_fd, 4096)
                    return WOKEN
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

WOKEN = object()


class Conduit:
    """The pending-response table plus the reading role over one fd."""

    def __init__(self, fd, dispatch, closed_error, wakeable=False):
        self._lock = threading.Lock()
        self._waiters = {}  # call id -> Waiter
        self._sleepers = {}  # Waiter -> None, in arrival order
        self._holder = None  # Waiter whose thread holds the reading role
        self._closed = None
        self._closed_error = closed_error  # fn() -> exception for EOF
        self.generation = 0  # counts role takeovers; the idle reader watches it
        self.dispatch = dispatch
        self._wake_w = None
        wake_fd = None
        if wakeable:
            wake_fd, self._wake_w = os.pipe()
            os.set_blocking(self._wake_w, False)
        self.lines = LineReader(fd, wake_fd=wake_fd)

    @property
    def closed(self):
        return self._closed

    def add(self, call_id):
        """A Waiter for call_id's response; raises (a copy of) the EOF error once closed."""
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
            self._finish(w)
        return True

    def fail_ids(self, ids, error_fn):
        """Fail the waiters of ids with error_fn() each; interrupts a holder among them."""
        poke = False
        with self._lock:
            for i in ids:
                w = self._waiters.pop(i, None)
                if w is not None:
                    w.error = error_fn()
                    self._finish(w)
                    poke = poke or w is self._holder
        if poke:
            self._poke()

    def wake(self, w):
        """Mark a non-call waiter done (and wake it)."""
        with self._lock:
            self._finish(w)

    def _finish(self, w):
        # under self._lock
        w.done = True
        if w in self._sleepers:
            del self._sleepers[w]
            w.gate.release()

    def _poke(self):
        if self._wake_w is not None:
            try:
                os.write(self._wake_w, b"x")
            except BlockingIOError:
                pass  # a wake-up is already pending

    def wait(self, w):
        """Block until w is done or the channel closed: read as the role
        holder when nobody else does, sleep otherwise."""
        while True:
            with self._lock:
                if w.done or self._closed is not None:
                    return
                if self._holder is None:
                    self._holder = w
                    self.generation += 1
                    lead = True
                else:
                    lead = False
                    if w.gate is None:
                        w.gate = _allocate()
                        w.gate.acquire()
                    self._sleepers[w] = None
                    holder = self._holder
                    if holder.yields and not holder.done:
                        holder.done = True
                        poke = True
                    else:
                        poke = False
            if not lead:
                if poke:
                    self._poke()
                try:
                    w.gate.acquire()
                except BaseException:  # KeyboardInterrupt while asleep: leave no one stranded
                    self._abandon(w)
                    raise
                continue
            try:
                self._lead(w)
            finally:
                self._release()
            return

    def lead_if_free(self, w):
        """Hold the role until w is done, if nobody holds it; never sleeps."""
        with self._lock:
            if self._holder is not None or self._closed is not None:
                return False
            self._holder = w
            self.generation += 1
        try:
            self._lead(w)
        finally:
            self._release()
        return True

    def serve_idle(self, interval):
        """Run by a daemon thread: take the reading role whenever nobody has
        taken it for ``interval`` seconds, and give it back as soon as
        someone waits (the conduit must be wakeable). So the fd is drained
        and frames are dispatched while no thread waits -- the peer's
        writes never stall -- without costing the common path anything.
        Returns at EOF."""
        waiter = Waiter(yields=True)
        seen = -1
        while self._closed is None:
            generation = self.generation
            if generation == seen:
                waiter.done = False
                self.lead_if_free(waiter)
                generation = self.generation
            seen = generation
            time.sleep(interval)

    def _abandon(self, w):
        with self._lock:
            if self._sleepers.pop(w, 0) is None:
                return  # nobody woke w
            # w was woken (maybe promoted) but will not read: pass the role on.
            if self._holder is None and self._sleepers:
                nxt = next(iter(self._sleepers))
                del self._sleepers[nxt]
                nxt.gate.release()

    def _release(self):
        with self._lock:
            self._holder = None
            if self._sleepers:
                nxt = next(iter(self._sleepers))
                del self._sleepers[nxt]
                nxt.gate.release()

    def _lead(self, w):
        readline = self.lines.readline
        dispatch = self.dispatch
        while not w.done:
            line = readline()
            if line is None:
                self._close()
                return
            if line is WOKEN:
                continue
            try:
                dispatch(line)
            except Exception:  # noqa: BLE001 - one bad frame must not stop the reading
                pass

    def _close(self):
        with self._lock:
            if self._closed is not None:
                return
            self._closed = self._closed_error()
            waiters = list(self._waiters.values())
            self._waiters.clear()
            for x in waiters:
                x.error = self._closed_error()
                self._finish(x)
            for x in list(self._sleepers):
                self._finish(x)
