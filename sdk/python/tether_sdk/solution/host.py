"""The solution host: ``python3 -m tether_sdk.solution.host --entry FILE``.

Start-up: the protocol moves to private fds (see ``_stdio``), ``ready`` is
written, then FILE is imported as the module ``user_solution`` (its folder
first on sys.path). Every top-level function defined in FILE is callable,
plus whatever ``register`` named (explicit registrations win).

Serving: one reader thread (see ``_conduit``) reads every frame from the
judge: ``call`` frames are queued for the main thread, which runs them one
at a time, in order (a call that runs long delays the ones behind it, as in
Neuro OJ); answers to ``call_capability`` go to the thread waiting for them.
So stdin is drained while user code runs, and the judge's writes never stall.
Output the function wrote through sys.stdout/sys.stderr is sent as ``log``
frames before the call's answer.

Answers (texts of docs/protocol/judge.md):
  result     {"type":"result","id":ID,"value":V}
  NotFound   function 'NAME' not registered
  Exception  message str(e) (paths cut, clipped; a fallback text when str()
             itself fails), trace sanitized
  Rejected   a return value outside the codec (``value: set is not
             transferable``, ``value: dict subclass D: items() raised
             KeyError: 'items'``), undecodable arguments, a frame over 1 MiB
Whatever the user's objects do, every call gets an answer and the host keeps
serving.

If importing FILE fails (syntax error, an exception or sys.exit at import,
missing module), the host stays up and answers every call with code
``Exception``, message ``solution import failed: Name: message`` and the
sanitized traceback of the import, so the evaluator sees why on its first
call (``SystemError`` there) and the run ends however the evaluator decides.

stdin EOF: calls already queued are answered, pending capability calls fail
with CapabilityConnectionError, and the process exits with status 0.

Run on its own (as Neuro OJ's tests and tools run its host; inside ``tether
judge`` neither happens, see docs/protocol/judge.md): a ``shutdown`` frame is
an EOF that must be over within a second -- should a call still run after
SHUTDOWN_GRACE seconds, the host exits 0 without it; SIGTERM exits 0 at once,
whatever is pending.
"""

import argparse
import importlib.util
import inspect
import os
import signal
import sys
import threading
import time
from collections import deque

from .. import codec
from .._conduit import Conduit, frame_dispatch
from .._frames import FrameWriter, encode_line, error_frame, inspect_frame, result_frame
from .._trace import exception_line, exception_message, format_trace, type_name
from ..errors import RejectedError
from . import _registry, _runtime, _stdio
from .errors import CapabilityConnectionError

MODULE_NAME = "user_solution"
SHUTDOWN_GRACE = 0.5  # seconds a running call gets after a shutdown frame


def _closed_error():
    return CapabilityConnectionError("channel to the judge closed (stdin EOF)")


class Host:
    """Serves calls on the thread that runs ``serve`` (the main thread)."""

    def __init__(self, files):
        self.files = files
        self.writer = FrameWriter(files.out)
        self.pending = Conduit(files.in_fd, frame_dispatch(self._dispatch, self._undecodable), _closed_error, on_close=self._wake)
        self.calls = deque()  # call frames read, for serve() on the main thread
        self._calls_lock = threading.Lock()
        self._sleeping = False  # serve() waits on _gate for a call or the close
        self._gate = threading.Lock()
        self._gate.acquire()
        self.functions = {}
        self.import_error = None
        self.streams = ()

    # --- the reader thread -------------------------------------------------

    def _dispatch(self, frame, _line):
        kind = frame.get("type")
        if kind == "call":
            call_id = frame.get("id")
            if type(call_id) is str and call_id:
                with self._calls_lock:
                    self.calls.append(frame)
                    self._wake_locked()
        elif kind == "result" or kind == "error":
            call_id = frame.get("id")
            if type(call_id) is str:
                self.pending.resolve(call_id, frame)
        elif kind == "shutdown":
            self.shutdown()

    def _wake_locked(self):
        if self._sleeping:
            self._sleeping = False
            self._gate.release()

    def _wake(self):
        with self._calls_lock:
            self._wake_locked()

    def shutdown(self):
        """A shutdown frame: stop reading (the conduit closes), let serve()
        answer what is queued and exit, and exit 0 after SHUTDOWN_GRACE if it
        has not (a call still running). Runs on the reader thread."""
        self.pending.close()
        self._wake()
        time.sleep(SHUTDOWN_GRACE)  # a deadline, not a hand-off: serve()'s exit ends the process first
        # A frame being written is finished first (bounded: the judge may be gone).
        self.writer.lock.acquire(timeout=SHUTDOWN_GRACE / 2)
        os._exit(0)

    def _undecodable(self, line, err):
        found = inspect_frame(line)
        if found is None:
            return
        kind, call_id = found
        if kind == "call":
            self.send(error_frame(call_id, "Rejected", "args: %s" % err))
        elif kind in ("result", "error"):
            self.pending.resolve(call_id, {"type": "error", "id": call_id, "code": "Rejected", "message": str(err)})

    # --- main thread -------------------------------------------------------

    def send(self, frame):
        self.writer.write_line(encode_line(frame))

    def load(self, entry):
        path = os.path.abspath(entry)
        sys.path.insert(0, os.path.dirname(path))
        sys.argv = [path]
        try:
            spec = importlib.util.spec_from_file_location(MODULE_NAME, path)
            if spec is None or spec.loader is None:
                raise ImportError("cannot load %s" % os.path.basename(path))
            module = importlib.util.module_from_spec(spec)
            sys.modules[MODULE_NAME] = module
            spec.loader.exec_module(module)
        except BaseException as e:  # noqa: BLE001 - SystemExit at import is a failed import too
            sys.modules.pop(MODULE_NAME, None)
            self.import_error = (
                "solution import failed: " + exception_line(e),
                format_trace(e, skip=1),
            )
            self.flush_logs()
            return
        for name, obj in vars(module).items():
            if inspect.isfunction(obj) and obj.__module__ == MODULE_NAME:
                self.functions[name] = obj

    def flush_logs(self):
        # A stream the user put in place of sys.stdout/sys.stderr (for example
        # io.TextIOWrapper(sys.stdout.buffer, ...)) holds text until flushed:
        # flush it too, so that its output comes before the call's answer.
        for s in (sys.stdout, sys.stderr):
            if s is not None and all(s is not t for t in self.streams):
                try:
                    s.flush()
                except Exception:  # noqa: BLE001 - the user's stream, the user's problem
                    pass
        for s in self.streams:
            s.flush()

    def serve(self):
        """Answer calls until stdin EOF; calls read before the EOF are answered."""
        calls, lock, gate, conduit = self.calls, self._calls_lock, self._gate, self.pending
        while True:
            with lock:
                if calls:
                    frame = calls.popleft()
                elif conduit.closed is not None:
                    return
                else:
                    self._sleeping = True
                    frame = None
            if frame is None:
                gate.acquire()
                continue
            try:
                answer = self.run_call(frame)
            except Exception as e:  # noqa: BLE001 - every call gets an answer; the host keeps serving
                answer = error_frame(frame["id"], "SystemError", "solution host: %s" % exception_line(e, 200))
            self.flush_logs()
            self.send_answer(frame["id"], answer)

    def run_call(self, frame):
        """The answer frame (text) for one call frame."""
        call_id = frame["id"]
        if self.import_error is not None:
            message, trace = self.import_error
            return error_frame(call_id, "Exception", message, trace)
        name = frame.get("fn")
        fn = _registry.lookup(name) if isinstance(name, str) else None
        if fn is None and isinstance(name, str):
            fn = self.functions.get(name)
        if fn is None:
            shown = "'%s'" % name if isinstance(name, str) else repr(name)
            return error_frame(call_id, "NotFound", "function %s not registered" % shown)
        args = frame.get("args", [])
        if type(args) is not list:
            return error_frame(call_id, "Rejected", "args must be an array")
        try:
            value = fn(*args)
        except BaseException as e:  # noqa: BLE001 - SystemExit/KeyboardInterrupt in user code are its exceptions
            return exception_frame(call_id, e, skip=1)
        try:
            return result_frame(call_id, codec.encode(value))
        except RejectedError as e:
            return error_frame(call_id, "Rejected", str(e))
        except BaseException as e:  # noqa: BLE001 - the codec refuses hostile values itself; belt and braces
            return error_frame(call_id, "Rejected", "value: cannot be encoded: %s" % exception_line(e, 200))

    def send_answer(self, call_id, frame):
        try:
            data = encode_line(frame)
        except RejectedError as e:  # over 1 MiB
            data = encode_line(error_frame(call_id, "Rejected", str(e)))
        self.writer.write_line(data)


def exception_frame(call_id, exc, skip=0):
    """The ``Exception`` answer for a user exception. Never raises: a message
    that cannot be built (``__str__`` raising, ...) has a fallback text."""
    try:
        return error_frame(call_id, "Exception", exception_message(exc), format_trace(exc, skip=skip))
    except BaseException:  # noqa: BLE001 - _trace never raises; belt and braces
        return error_frame(call_id, "Exception", "<exception could not be reported>", "Traceback (most recent call last):\n" + type_name(exc))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m tether_sdk.solution.host")
    parser.add_argument("--entry", default=os.environ.get("TETHER_SOLUTION_ENTRY"), help="the solution file")
    opts = parser.parse_args(argv)
    if not opts.entry:
        parser.error("--entry FILE (or TETHER_SOLUTION_ENTRY) is required")

    # SIGTERM: exit 0 at once, even with a call or a capability pending (os._exit
    # runs no Python cleanup that could wait on a lock the interrupted code holds).
    signal.signal(signal.SIGTERM, lambda signum, frame: os._exit(0))
    files = _stdio.isolate()
    host = Host(files)
    _runtime.writer, _runtime.pending = host.writer, host.pending
    status = 0
    try:
        host.writer.write_line(b'{"type":"ready"}\n')
        host.streams = _stdio.redirect_text(host.writer)
        host.pending.start("tether-host-reader")
        host.load(opts.entry)
        host.serve()
        host.flush_logs()
    except OSError:
        pass  # the judge closed our stdout: nobody is left to answer
    except BaseException as e:  # noqa: BLE001 - last words go to the real stderr
        sys.__stderr__.write("tether host: internal error: %s\n" % exception_line(e))
        status = 1
    try:
        files.out.flush()
    except OSError:
        pass
    # os._exit: threads user code started must not keep the host alive after EOF.
    os._exit(status)


if __name__ == "__main__":
    main()
