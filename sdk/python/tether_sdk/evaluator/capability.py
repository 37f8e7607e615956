"""Capabilities: functions of the evaluator that the solution may call.

``register_capability`` writes a private ``cap_reg`` frame (the judge keeps
the per-capability timeout; it is never forwarded) and stores the handler.
When a ``capability`` frame arrives the thread reading stdin only queues it; a pool
of daemon worker threads (grown on demand up to MAX_WORKERS) runs the
handlers, so a slow handler never blocks responses to ``SolutionRunner.call``.
Answers: ``result`` with the encoded return value; ``error`` with code
``NotFound`` (``capability 'NAME' not registered``), ``Rejected`` (arguments
or return value outside the codec -- a subclass whose methods raise too --,
frame over 1 MiB) or ``Exception`` (message ``str(e)`` sanitized and cut at
1024 characters, a fallback text when ``str(e)`` itself fails; sanitized
trace; ``sys.exit`` in a handler is an exception too). A worker never ends
on a handler's account; should one end anyway, its slot is given back.
"""

import queue
import threading

from .. import codec
from .._frames import encode_line, error_frame, result_frame
from .._trace import exception_line, exception_message, format_trace
from ..errors import ConnectionError, RejectedError
from ._channel import channel

__all__ = ["register_capability", "unregister_capability"]

MAX_WORKERS = 16
MAX_CAPABILITY_MESSAGE = 1024

_lock = threading.Lock()
_handlers = {}
_jobs = queue.SimpleQueue()
_workers = 0
_idle = 0


def register_capability(name, handler, timeout_ms=None):
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


def unregister_capability(name):
    """Forget a capability; later calls to it get NotFound."""
    with _lock:
        _handlers.pop(name, None)


def _submit(frame):
    """Called on the thread reading stdin: queue the request, start a worker if none is idle."""
    _jobs.put(frame)
    _start_worker()


def _start_worker():
    """Start a worker unless one is idle or the pool is full (the queued job
    is then taken by the next free worker)."""
    global _workers
    with _lock:
        if _idle > 0 or _workers >= MAX_WORKERS:
            return
        _workers += 1
        n = _workers
    try:
        threading.Thread(target=_work, name="tether-capability-%d" % n, daemon=True).start()
    except Exception:  # noqa: BLE001 - no thread (resources): the slot is given back, the job stays queued
        with _lock:
            _workers -= 1


def _work():
    """A worker: serves queued requests forever. Nothing a handler does can
    end it (every failure becomes an answer), and should it end anyway the
    pool's count is given back and a replacement started if work is queued."""
    global _workers, _idle
    try:
        while True:
            with _lock:
                _idle += 1
            try:
                frame = _jobs.get()
            finally:
                with _lock:
                    _idle -= 1
            try:
                _serve(frame)
            except BaseException as e:  # noqa: BLE001 - last resort: the request still gets an answer
                _failed(frame, e)
    finally:
        with _lock:
            _workers -= 1
        if not _jobs.empty():
            _start_worker()


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
    except ConnectionError:
        pass
