"""The leader/follower reading of both SDK ends (tether_sdk._conduit): the
line reader, the reading role in process over os.pipe, and the paths that
have no caller to read for them (the evaluator's idle reader, capability
calls from a solution's own threads)."""

import os
import threading
import time

import pytest

from fakejudge import call, start_evaluator, start_host
from tether_sdk._conduit import WOKEN, Conduit, LineReader, Waiter

JOIN = 10.0  # seconds before a thread that should have finished counts as stuck


@pytest.fixture
def pipe():
    r, w = os.pipe()
    yield r, w
    for fd in (r, w):
        try:
            os.close(fd)
        except OSError:
            pass


def _lines(reader):
    out = []
    while True:
        line = reader.readline()
        if line is None:
            return out
        out.append(line)


def test_line_reader_splits_joins_and_keeps_a_final_line(pipe):
    r, w = pipe
    os.write(w, b'{"a":1}\n{"b"')
    os.write(w, b":2}\n\nlast")
    os.close(w)
    assert _lines(LineReader(r)) == [b'{"a":1}', b'{"b":2}', b"", b"last"]


def test_line_reader_skips_an_overlong_line_whole(pipe):
    r, w = pipe
    long_line = b"x" * 100

    def feed():
        os.write(w, b"before\n" + long_line[:40])
        time.sleep(0.05)
        os.write(w, long_line[40:] + b"\nafter\n" + b"y" * 30)
        os.close(w)

    t = threading.Thread(target=feed)
    t.start()
    try:
        # the 30-byte tail is not over the cap: it counts as a final line
        assert _lines(LineReader(r, max_line=32)) == [b"before", b"after", b"y" * 30]
    finally:
        t.join(JOIN)


def test_line_reader_returns_woken_when_poked(pipe):
    r, _ = pipe
    wake_r, wake_w = os.pipe()
    try:
        reader = LineReader(r, wake_fd=wake_r)
        os.write(wake_w, b"x")
        assert reader.readline() is WOKEN
    finally:
        os.close(wake_r)
        os.close(wake_w)


def _conduit(fd, wakeable=False):
    box = {}

    def dispatch(line):
        call_id, _, value = line.decode().partition("=")
        box["c"].resolve(call_id, value)

    c = Conduit(fd, dispatch, lambda: EOFError("closed"), wakeable=wakeable)
    box["c"] = c
    return c


def test_waiters_get_their_own_answers_out_of_order(pipe):
    r, w = pipe
    c = _conduit(r)
    got = {}

    def worker(i):
        waiter = c.add("id%d" % i)
        c.wait(waiter)
        got[i] = waiter.frame

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    time.sleep(0.05)
    for i in reversed(range(6)):
        os.write(w, b"id%d=v%d\n" % (i, i))
    for t in threads:
        t.join(JOIN)
    assert got == {i: "v%d" % i for i in range(6)}
    assert c._holder is None and not c._sleepers


def test_eof_fails_every_waiter_and_later_adds(pipe):
    r, w = pipe
    c = _conduit(r)
    errors = []

    def worker(i):
        waiter = c.add("id%d" % i)
        c.wait(waiter)
        errors.append(waiter.error)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    time.sleep(0.05)
    os.close(w)
    for t in threads:
        t.join(JOIN)
    assert len(errors) == 3 and all(isinstance(e, EOFError) for e in errors)
    with pytest.raises(EOFError):
        c.add("later")


def test_failing_the_holder_interrupts_its_read(pipe):
    r, _ = pipe
    c = _conduit(r, wakeable=True)
    waiter = c.add("slow")
    t = threading.Thread(target=c.wait, args=(waiter,))
    t.start()
    while c._holder is not waiter:
        time.sleep(0.01)
    c.fail_ids(["slow"], lambda: EOFError("runner closed"))
    t.join(JOIN)
    assert not t.is_alive() and str(waiter.error) == "runner closed"


def test_a_yielding_holder_hands_the_role_to_a_caller(pipe):
    r, w = pipe
    c = _conduit(r, wakeable=True)
    idle = Waiter(yields=True)
    t = threading.Thread(target=c.lead_if_free, args=(idle,))
    t.start()
    while c._holder is not idle:
        time.sleep(0.01)
    assert c.lead_if_free(Waiter()) is False  # taken: never sleeps
    waiter = c.add("a")
    done = threading.Thread(target=c.wait, args=(waiter,))
    done.start()
    t.join(JOIN)  # the idle holder gave the role up
    assert not t.is_alive()
    os.write(w, b"a=1\n")
    done.join(JOIN)
    assert waiter.frame == "1"


def test_evaluator_serves_a_capability_while_no_call_waits(tmp_path, peers):
    p = start_evaluator(tmp_path, """
        import threading
        from tether_sdk.evaluator import register_capability
        served = threading.Event()
        register_capability("ping", lambda x: (served.set(), x + 1)[1])
        served.wait(10)
        print("served", served.is_set())
    """)
    peers.append(p)
    assert p.frame() == {"type": "cap_reg", "name": "ping"}
    p.send({"type": "capability", "id": "c1", "name": "ping", "args": [41]})
    assert p.frame() == {"type": "result", "id": "c1", "value": 42}
    assert p.text() == "served True"
    assert p.wait() == 0


THREADED = """
import threading
from tether_sdk.solution import call_capability

results = []

def start():
    t = threading.Thread(target=lambda: results.append(call_capability("ping", 1)))
    t.start()
    return "started"

def collected():
    return results
"""


def test_host_answers_a_capability_of_a_user_thread_while_idle(tmp_path, peers):
    p = start_host(tmp_path, THREADED)
    peers.append(p)
    p.send({"type": "call", "id": "c1", "fn": "start", "args": []})
    # the answer and the user thread's request, in either order; then the
    # main thread is back reading and must hand the answer to that thread
    two = sorted([p.frame(skip_logs=True), p.frame(skip_logs=True)], key=lambda f: f["type"])
    assert two[1] == {"type": "result", "id": "c1", "value": "started"}
    req = two[0]
    assert req["type"] == "capability" and req["name"] == "ping"
    time.sleep(0.05)
    p.send({"type": "result", "id": req["id"], "value": "pong"})
    for _ in range(100):
        f = call(p, "c2", "collected")
        if f["value"]:
            break
        time.sleep(0.02)
    assert f["value"] == ["pong"]


DRAIN = """
import os, time

def wait_for(path):
    while not os.path.exists(path):
        time.sleep(0.005)
    return "released"

def echo(x):
    return x
"""


def test_host_drains_stdin_while_a_call_runs(tmp_path, peers):
    # The call runs until the test has written far more than a pipe holds; a
    # host that did not read meanwhile would block these writes for good.
    p = start_host(tmp_path, DRAIN)
    peers.append(p)
    flag = tmp_path / "release"
    p.send({"type": "call", "id": "w", "fn": "wait_for", "args": [str(flag)]})
    payload = "x" * 4000
    n = 100  # ~400 KB
    sender = threading.Thread(
        target=lambda: [p.send({"type": "call", "id": "e%d" % i, "fn": "echo", "args": [payload]}) for i in range(n)]
    )
    sender.start()
    sender.join(JOIN)
    sent = not sender.is_alive()
    flag.write_text("")
    assert sent, "the host stopped reading stdin while a call ran"
    assert p.frame(skip_logs=True) == {"type": "result", "id": "w", "value": "released"}
    for i in range(n):
        assert p.frame(skip_logs=True) == {"type": "result", "id": "e%d" % i, "value": payload}


class _Interrupt(Exception):
    pass


def test_an_interrupted_sleeper_leaves_the_others_served(pipe):
    import signal

    r, w = pipe
    c = _conduit(r)
    a = c.add("a")
    holder = threading.Thread(target=c.wait, args=(a,))
    holder.start()
    while c._holder is not a:
        time.sleep(0.01)
    b = c.add("b")

    def interrupt(*_):
        raise _Interrupt()

    old = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.1)
        with pytest.raises(_Interrupt):
            c.wait(b)  # sleeps: "a" holds the role
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert b not in c._sleepers
    c.discard("b")
    d = c.add("d")
    other = threading.Thread(target=c.wait, args=(d,))
    other.start()
    os.write(w, b"a=1\nd=2\n")
    holder.join(JOIN)
    other.join(JOIN)
    assert (a.frame, d.frame) == ("1", "2")
