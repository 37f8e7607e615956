"""Capabilities: functions of the evaluator that the solution may call.

``register_capability`` writes a private ``cap_reg`` frame (the judge keeps
the per-capability timeout; it is never forwarded) and stores the handler.
When a ``capability`` frame arrives the reader thread only queues it; a pool
of daemon worker threads (grown on demand up to MAX_WORKERS) runs the
handlers, so a slow handler never blocks responses to ``SolutionRunner.call``.

What the solution sends is bounded here, since it lives in the evaluator's
memory: requests wait in a queue of at most MAX_WAITING frames and
MAX_WAITING_COST, and run only while the requests being served cost at most
MAX_RUNNING_COST together (the first one always runs). A frame's cost is
its bytes plus what its arrays and objects take once decoded (a 1 MiB frame
of nested empty lists decodes to ~40 MB). A request past the queue's bounds
is answered at once with ``Rejected`` (``capability queue full ...``): the
solution caused it and the solution sees it, and the evaluator's memory and
verdict stay its own.

Answers: ``result`` with the encoded return value; ``error`` with code
``NotFound`` (``capability 'NAME' not registered``), ``Rejected`` (arguments
or return value outside the codec -- a subclass whose methods raise too --,
frame over 1 MiB, queue full) or ``Exception`` (message ``str(e)`` sanitized
and cut at 1024 characters, a fallback text when ``str(e)`` itself fails;
sanitized trace; ``sys.exit`` in a handler is an exception too). A worker
never ends on a handler's account; should one end anyway, its slot is given
back.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any, Callable, Optional

from .. import codec
from .._frames import encode_line, error_frame, result_frame
from .._trace import exception_line, exception_message, format_trace
from ..errors import JudgeConnectionError, RejectedError
from ._channel import channel

__all__ = ["register_capability", "unregister_capability"]

MAX_WORKERS = 16
MAX_CAPABILITY_MESSAGE = 1024
MAX_WAITING = 1024  # requests queued behind busy workers
MAX_WAITING_COST = 32 << 20  # their cost (see frame_cost)
MAX_RUNNING_COST = 48 << 20  # cost of the requests being served at once
CONTAINER_COST = 96  # bytes a decoded list or dict takes at least (object, GC header, slot)
ITEM_COST = 16  # bytes per element slot (pointer and over-allocation)

_lock = threading.Lock()
_ready = threading.Condition(_lock)  # a queued request may run now
_handlers = {}
_jobs = deque()  # (frame, cost) waiting for a worker
_waiting_cost = 0
_running = 0
_running_cost = 0
_workers = 0
_idle = 0


def frame_cost(line: bytes) -> int:
    """An upper estimate of the memory a decoded frame holds: its bytes plus
    CONTAINER_COST per array or object and ITEM_COST per element."""
    n = len(line)
    if n < 4096:
        return n  # small frames: whatever they hold is small
    return n + CONTAINER_COST * (line.count(b"[") + line.count(b"{")) + ITEM_COST * line.count(b",")


def register_capability(name: str, handler: Callable[..., Any], timeout_ms: Optional[int] = None) -> None:
    """Offer ``handler(*args)`` to the solution as capability ``name``.

    A positive int ``timeout_ms`` sets this capability's deadline at the
    judge; None (or <= 0) falls back to the problem's call_timeout_ms. The
    latest registration of a name wins. Safe to call from any thread."""
    if not isinstance(name, str) or not name:
        raise TypeError("capability name must be a non-empty str, not %r" % (name,))
    if not callable(handler):
        raise TypeError("handler for capability %r is not callable" % name)
    if timeout_ms is not None and (type(timeout_ms) is not int):
        raise ValueError("timeout_ms must be an int or None, not %r" % (timeout_ms,))
    ch = channel()
    with _lock:
        _handlers[name] = handler
        ch.capability_handler = _submit
    frame = '{"type":"cap_reg","name":%s%s}' % (
        codec.encode(name),
        ',"timeout_ms":%d' % timeout_ms if timeout_ms is not None and timeout_ms > 0 else "",
    )
    ch.write_frame(frame)


def unregister_capability(name: str) -> None:
    """Forget a capability; later calls to it get NotFound."""
    with _lock:
        _handlers.pop(name, None)


def _submit(frame, line):
    """Called on the reader thread: queue the request (a worker is woken or
    started), or answer it Rejected when the queue is full."""
    global _waiting_cost, _workers
    cost = frame_cost(line)
    with _lock:
        full = len(_jobs) >= MAX_WAITING or (len(_jobs) > 0 and _waiting_cost + cost > MAX_WAITING_COST)
        if not full:
            _jobs.append((frame, cost))
            _waiting_cost += cost
            if _idle > 0:
                _ready.notify()
                start = False
            else:
                start = _workers < MAX_WORKERS
                if start:
                    _workers += 1
        waiting, running = len(_jobs), _running
    if full:
        call_id = frame.get("id")
        if type(call_id) is str and call_id:
            _reply(call_id, "Rejected", "capability queue full (%d waiting, %d running): call again once an "
                   "earlier call has returned" % (waiting, running))
        return
    if start:
        _start_worker(waiting + running)


def _start_worker(n):
    """Start a worker whose slot was taken; should no thread start
    (resources), the slot is given back and the job stays queued."""
    global _workers
    try:
        threading.Thread(target=_work, name="tether-capability-%d" % n, daemon=True).start()
    except Exception:  # noqa: BLE001 - see above
        with _lock:
            _workers -= 1


def _runnable():
    # under _lock
    return len(_jobs) > 0 and (_running == 0 or _running_cost + _jobs[0][1] <= MAX_RUNNING_COST)


def _take():
    """Wait for a request that may run now and count it as running."""
    global _idle, _waiting_cost, _running, _running_cost
    with _lock:
        _idle += 1
        try:
            while not _runnable():
                _ready.wait()
        finally:
            _idle -= 1
        frame, cost = _jobs.popleft()
        _waiting_cost -= cost
        _running += 1
        _running_cost += cost
        if _idle > 0 and _runnable():
            _ready.notify()
    return frame, cost


def _done(cost):
    global _running, _running_cost
    with _lock:
        _running -= 1
        _running_cost -= cost
        if _idle > 0 and _runnable():
            _ready.notify()


def _work():
    """A worker: serves queued requests forever. Nothing a handler does can
    end it (every failure becomes an answer), and should it end anyway the
    pool's count is given back and a replacement started if work is queued."""
    global _workers
    try:
        while True:
            frame, cost = _take()
            try:
                _serve(frame)
            except BaseException as e:  # noqa: BLE001 - last resort: the request still gets an answer
                _failed(frame, e)
            finally:
                del frame  # the request's memory goes before the next is taken
                _done(cost)
    finally:
        with _lock:
            _workers -= 1
            restart = bool(_jobs) and _idle == 0
            if restart:
                _workers += 1
        if restart:
            _start_worker(_workers)


def _failed(frame, exc):
    try:
        call_id = frame.get("id")
        if type(call_id) is str and call_id:
            _reply(call_id, "SystemError", "capability worker: %s" % exception_line(exc, 200))
    except BaseException:  # noqa: BLE001 - the channel itself is gone
        pass


def _serve(frame):
    call_id = frame.get("id")
    if type(call_id) is not str or not call_id:
        return
    name = frame.get("name")
    with _lock:
        handler = _handlers.get(name) if isinstance(name, str) else None
    if handler is None:
        shown = "'%s'" % name if isinstance(name, str) else repr(name)
        _reply(call_id, "NotFound", "capability %s not registered" % shown)
        return
    args = frame.get("args", [])
    if type(args) is not list:
        _reply(call_id, "Rejected", "capability args must be an array")
        return
    try:
        value = handler(*args)
    except BaseException as e:  # noqa: BLE001 - any handler failure (sys.exit too) goes back to the solution
        # exception_message and format_trace never raise, even when str(e) does.
        _reply(call_id, "Exception", exception_message(e, MAX_CAPABILITY_MESSAGE, marked=False), format_trace(e, skip=1))
        return
    try:
        data = encode_line(result_frame(call_id, codec.encode(value)))
    except RejectedError as e:
        _reply(call_id, "Rejected", str(e))
        return
    except Exception as e:  # noqa: BLE001 - the codec refuses hostile values itself; belt and braces
        _reply(call_id, "Rejected", "value: cannot be encoded: %s" % exception_line(e, 200))
        return
    _send(data)


def _reply(call_id, code, message, trace=None):
    try:
        data = encode_line(error_frame(call_id, code, message, trace))
    except RejectedError as e:  # messages and traces are clipped; belt and braces
        data = encode_line(error_frame(call_id, "Rejected", str(e)))
    _send(data)


def _send(data):
    try:
        channel().write_line(data)
    except JudgeConnectionError:
        pass
