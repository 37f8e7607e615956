"""The solution host: ``python3 -m tether_sdk.solution.host --entry FILE``.

Start-up: the protocol moves to private fds (see ``_stdio``), ``ready`` is
written, then FILE is imported as the module ``user_solution`` (its folder
first on sys.path). Every top-level function defined in FILE is callable,
plus whatever ``register`` named (explicit registrations win).

Serving: a reader thread reads frames from the judge. ``call`` frames are
queued and run one at a time, in order, on the main thread (a call that runs
long delays the ones behind it, as in Neuro OJ); ``result``/``error`` frames
answer the solution's own ``call_capability`` calls and are handed straight
to the waiting thread, so a function may call capabilities while it runs.
Output the function wrote through sys.stdout/sys.stderr is sent as ``log``
frames before the call's answer.

Answers (texts of dual.md):
  result     {"type":"result","id":ID,"value":V}
  NotFound   function 'NAME' not registered
  Exception  message str(e) (paths cut), trace sanitized
  Rejected   a return value outside the codec (``value: set is not
             transferable``), undecodable arguments, a frame over 1 MiB

If importing FILE fails (syntax error, an exception or sys.exit at import,
missing module), the host stays up and answers every call with code
``Exception``, message ``solution import failed: Name: message`` and the
sanitized traceback of the import, so the evaluator sees why on its first
call (``SystemError`` there) and the run ends however the evaluator decides.

stdin EOF: calls already queued are answered, pending capability calls fail
with CapabilityConnectionError, and the process exits with status 0.
"""

import argparse
import importlib.util
import inspect
import json
import os
import queue
import sys
import threading

from .. import codec
from .._frames import FrameWriter, encode_line, error_frame, read_lines, result_frame
from .._pending import PendingTable
from .._trace import exception_line, exception_message, format_trace
from ..errors import RejectedError
from . import _registry, _runtime, _stdio
from .errors import CapabilityConnectionError

MODULE_NAME = "user_solution"
_STOP = object()


class Host:
    def __init__(self, files):
        self.files = files
        self.writer = FrameWriter(files.out)
        self.pending = PendingTable()
        self.calls = queue.SimpleQueue()
        self.functions = {}
        self.import_error = None
        self.streams = ()

    # --- reader thread ---------------------------------------------------

    def read_loop(self):
        try:
            for line in read_lines(self.files.in_fd):
                self._dispatch(line)
        except Exception:  # noqa: BLE001 - the reader must always signal the end
            pass
        finally:
            self.pending.fail_all(CapabilityConnectionError("channel to the judge closed (stdin EOF)"))
            self.calls.put(_STOP)

    def _dispatch(self, line):
        try:
            frame = codec.decode_frame(line)
        except RejectedError as e:
            self._undecodable(line, e)
            return
        if frame is None:
            return
        kind = frame.get("type")
        if kind == "call":
            call_id = frame.get("id")
            if type(call_id) is str and call_id:
                self.calls.put(frame)
        elif kind == "result" or kind == "error":
            call_id = frame.get("id")
            if type(call_id) is str:
                self.pending.resolve(call_id, frame)

    def _undecodable(self, line, err):
        try:
            raw = json.loads(line)
        except ValueError:
            return
        if not isinstance(raw, dict):
            return
        call_id, kind = raw.get("id"), raw.get("type")
        if type(call_id) is not str or not call_id:
            return
        if kind == "call":
            self.send(error_frame(call_id, "Rejected", "args: %s" % err))
        elif kind in ("result", "error"):
            self.pending.resolve(call_id, {"type": "error", "id": call_id, "code": "Rejected", "message": str(err)})

    # --- main thread -----------------------------------------------------

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
        for s in self.streams:
            s.flush()

    def serve(self):
        while True:
            frame = self.calls.get()
            if frame is _STOP:
                return
            answer = self.run_call(frame)
            self.flush_logs()
            self.send_answer(frame["id"], answer)

    def run_call(self, frame):
        """The answer frame (text) for one call frame."""
        call_id = frame["id"]
        if self.import_error is not None:
            message, trace = self.import_error
            return error_frame(call_id, "Exception", message, trace)
        name = frame.get("fn")
        fn = _registry.explicit().get(name) if isinstance(name, str) else None
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
            return error_frame(call_id, "Exception", exception_message(e), format_trace(e, skip=1))
        try:
            return result_frame(call_id, codec.encode(value))
        except RejectedError as e:
            return error_frame(call_id, "Rejected", str(e))

    def send_answer(self, call_id, frame):
        try:
            data = encode_line(frame)
        except RejectedError as e:  # over 1 MiB
            data = encode_line(error_frame(call_id, "Rejected", str(e)))
        self.writer.write_line(data)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m tether_sdk.solution.host")
    parser.add_argument("--entry", default=os.environ.get("TETHER_SOLUTION_ENTRY"), help="the solution file")
    opts = parser.parse_args(argv)
    if not opts.entry:
        parser.error("--entry FILE (or TETHER_SOLUTION_ENTRY) is required")

    files = _stdio.isolate()
    host = Host(files)
    _runtime.writer, _runtime.pending = host.writer, host.pending
    status = 0
    try:
        host.writer.write_line(b'{"type":"ready"}\n')
        host.streams = _stdio.redirect_text(host.writer)
        threading.Thread(target=host.read_loop, name="tether-host-reader", daemon=True).start()
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
