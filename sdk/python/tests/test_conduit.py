"""The one reader of both SDK ends (tether_sdk._conduit): the line reader,
the reader thread and its table of waiters over os.pipe, and the paths that
have no caller waiting (the evaluator serving capabilities, capability calls
from a solution's own threads, calls queued while one runs). Every wait here
is on an event: a thread's end, a frame, a pipe's EOF."""

import os
import queue
import threading

import pytest

from fakejudge import call
from tether_sdk._conduit import Conduit, LineReader

JOIN = 10.0  # seconds before a thread that should have finished counts as stuck


class Pipe:
    """An os.pipe() and the reader threads started on its read end.

    ``close`` ends it as a peer would: the write end first, so each reader
    reads EOF and is joined, and only then the read end. Closing the read end
    under a live reader frees its fd number for the next test's pipe, and the
    old reader would then take that test's lines (bench/pyflake.sh once saw a
    test hang so, its line read by the previous test's reader)."""

    def __init__(self):
        self.r, self.w = os.pipe()
        self._open = [self.r, self.w]
        self._readers = []

    def conduit(self, on_line=None, on_close=None):
        """A started Conduit on r whose lines are ``ID=VALUE`` answers (or given to on_line)."""
        def dispatch(line):
            if on_line is not None and on_line(line):
                return
            call_id, _, value = line.decode().partition("=")
            c.resolve(call_id, value)

        c = Conduit(self.r, dispatch, lambda: ConnectionError("closed"), on_close=on_close)
        c.start("test-reader")
        self._readers.append(c._thread)
        return c

    def close_write(self):
        self._close(self.w)

    def close(self):
        self.close_write()
        for t in self._readers:
            t.join(JOIN)
            assert not t.is_alive(), "a conduit reader did not stop at its pipe's EOF"
        self._close(self.r)

    def _close(self, fd):
        if fd in self._open:
            self._open.remove(fd)
            os.close(fd)


@pytest.fixture
def pipe():
    p = Pipe()
    yield p
    p.close()


def _lines(reader):
    out = []
    while True:
        line = reader.readline()
        if line is None:
            return out
        out.append(line)


def test_line_reader_splits_joins_and_keeps_a_final_line(pipe):
    r, w = pipe.r, pipe.w
    os.write(w, b'{"a":1}\n{"b"')
    os.write(w, b":2}\n\nlast")
    pipe.close_write()
    assert _lines(LineReader(r)) == [b'{"a":1}', b'{"b":2}', b"", b"last"]


def test_line_reader_skips_an_overlong_line_whole(pipe):
    r, w = pipe.r, pipe.w
    long_line = b"x" * 100
    reader = LineReader(r, max_line=32)
    os.write(w, b"before\n" + long_line[:40])
    assert reader.readline() == b"before"  # one read took the start of the long line too
    os.write(w, long_line[40:] + b"\nafter\n" + b"y" * 30)
    pipe.close_write()
    # the 30-byte tail is not over the cap: it counts as a final line
    assert _lines(reader) == [b"after", b"y" * 30]


def test_waiters_get_their_own_answers_out_of_order(pipe):
    w = pipe.w
    c = pipe.conduit()
    got = {}
    waiters = {i: c.add(i) for i in ("a", "b", "c")}

    def wait(i):
        c.wait(waiters[i])
        got[i] = waiters[i].frame

    threads = [threading.Thread(target=wait, args=(i,)) for i in waiters]
    for t in threads:
        t.start()
    os.write(w, b"c=3\nnobody=0\nb=2\na=1\n")
    for t in threads:
        t.join(JOIN)
    assert got == {"a": "1", "b": "2", "c": "3"}
    assert c.resolve("a", "again") is False  # answered once


def test_eof_fails_every_waiter_and_later_adds(pipe):
    closed = threading.Event()
    c = pipe.conduit(on_close=closed.set)
    waiter = c.add("x")
    pipe.close_write()
    c.wait(waiter)
    assert isinstance(waiter.error, ConnectionError) and waiter.frame is None
    assert closed.wait(JOIN) and c.closed is not None
    with pytest.raises(ConnectionError):
        c.add("y")


def test_close_from_dispatch_stops_the_reader(pipe):
    w = pipe.w
    seen = queue.Queue()

    def on_line(line):
        seen.put(line)
        if line == b"stop":
            c.close()
        return True

    c = pipe.conduit(on_line=on_line)
    waiter = c.add("pending")
    os.write(w, b"one\nstop\nafter\n")
    c.wait(waiter)
    assert isinstance(waiter.error, ConnectionError)
    c._thread.join(JOIN)
    assert not c._thread.is_alive()  # the pipe is still open: the reader stopped by itself
    assert [seen.get_nowait() for _ in range(seen.qsize())] == [b"one", b"stop"]


def test_fail_ids_fails_only_those(pipe):
    w = pipe.w
    c = pipe.conduit()
    a, b = c.add("a"), c.add("b")
    c.fail_ids(["a", "missing"], lambda: ConnectionError("runner closed"))
    c.wait(a)
    assert str(a.error) == "runner closed" and not b.done
    os.write(w, b"b=2\n")
    c.wait(b)
    assert b.frame == "2"


def test_evaluator_serves_a_capability_while_no_call_waits(peers):
    p = peers.evaluator("""
        import threading
        from tether_sdk.evaluator import SolutionRunner, register_capability
        served = threading.Event()
        register_capability("ping", lambda x: (served.set(), x + 1)[1])
        served.wait(10)
        print("after:", SolutionRunner().call("after"))  # the judge answers once it has the result
    """)
    assert p.frame() == {"type": "cap_reg", "name": "ping"}
    p.send({"type": "capability", "id": "c1", "name": "ping", "args": [41]})
    # the worker's answer and the main thread's next call race: either order
    two = sorted([p.frame(), p.frame()], key=lambda f: f["type"])
    assert two[1] == {"type": "result", "id": "c1", "value": 42}
    assert two[0]["type"] == "call" and two[0]["fn"] == "after"
    p.send({"type": "result", "id": two[0]["id"], "value": 1})
    assert p.text() == "after: 1"
    assert p.wait() == 0


THREADED = """
import threading
from tether_sdk.solution import call_capability

results = []
threads = []

def start():
    t = threading.Thread(target=lambda: results.append(call_capability("ping", 1)))
    threads.append(t)
    t.start()
    return "started"

def collected():
    threads[0].join()
    return results
"""


def test_host_answers_a_capability_of_a_user_thread_while_idle(peers):
    p = peers.host(THREADED)
    p.send({"type": "call", "id": "c1", "fn": "start", "args": []})
    # the answer and the user thread's request, in either order; the main
    # thread is then idle and the reader must hand the answer to that thread
    two = sorted([p.frame(skip_logs=True), p.frame(skip_logs=True)], key=lambda f: f["type"])
    assert two[1] == {"type": "result", "id": "c1", "value": "started"}
    req = two[0]
    assert req["type"] == "capability" and req["name"] == "ping"
    p.send({"type": "result", "id": req["id"], "value": "pong"})
    assert call(p, "c2", "collected")["value"] == ["pong"]


DRAIN = """
from tether_sdk.solution import call_capability

def wait_for_release():
    return call_capability("release")

def echo(x):
    return x
"""


def test_host_drains_stdin_while_a_call_runs(peers):
    # The call runs until the test has written far more than a pipe holds; a
    # host that did not read meanwhile would block these writes for good.
    p = peers.host(DRAIN)
    p.send({"type": "call", "id": "w", "fn": "wait_for_release", "args": []})
    req = p.frame()
    assert req["type"] == "capability" and req["name"] == "release"
    payload = "x" * 4000
    n = 100  # ~400 KB
    sender = threading.Thread(
        target=lambda: [p.send({"type": "call", "id": "e%d" % i, "fn": "echo", "args": [payload]}) for i in range(n)]
    )
    sender.start()
    sender.join(JOIN)
    sent = not sender.is_alive()
    p.send({"type": "result", "id": req["id"], "value": "released"})
    assert sent, "the host stopped reading stdin while a call ran"
    assert p.frame(skip_logs=True) == {"type": "result", "id": "w", "value": "released"}
    for i in range(n):
        assert p.frame(skip_logs=True) == {"type": "result", "id": "e%d" % i, "value": payload}
