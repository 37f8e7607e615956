"""A fake judge on pipes: starts an SDK process and plays the other side.

``Peer`` wraps a subprocess whose stdin/stdout are the protocol channel. A
reader thread (owned by the Peer, joined in ``close``) turns stdout lines into
a queue, so tests read with a timeout instead of hanging on a broken SDK.
"""

import json
import os
import queue
import subprocess
import sys
import textwrap
import threading

from conftest import SDK_DIR

# A guard against a hung SDK, not a speed check: long enough for a start on
# a heavily loaded machine (make check saw 10 s pass there).
TIMEOUT = 60.0


class Peer:
    def __init__(self, argv, cwd=None, env=None):
        full_env = dict(os.environ)
        full_env["PYTHONPATH"] = SDK_DIR
        full_env["PYTHONDONTWRITEBYTECODE"] = "1"
        full_env.update(env or {})
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=full_env,
        )
        self.lines = queue.Queue()
        self._stderr = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._err_reader = threading.Thread(target=self._read_err, daemon=True)
        self._reader.start()
        self._err_reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip(b"\n"))
        self.lines.put(None)

    def _read_err(self):
        for line in self.proc.stderr:
            self._stderr.append(line)

    @property
    def stderr(self):
        return b"".join(self._stderr).decode("utf-8", "replace")

    def send(self, frame):
        """Write a frame (dict) or a raw line (str/bytes)."""
        if isinstance(frame, dict):
            frame = json.dumps(frame, separators=(",", ":"))
        if isinstance(frame, str):
            frame = frame.encode("utf-8")
        self.proc.stdin.write(frame + b"\n")
        self.proc.stdin.flush()

    def line(self, timeout=TIMEOUT):
        """Next stdout line as bytes; None at EOF."""
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("no output within %.0fs; stderr:\n%s" % (timeout, self.stderr)) from None

    def frame(self, timeout=TIMEOUT, skip_logs=False):
        """Next line, which must be a JSON frame; returned as a dict."""
        while True:
            raw = self.line(timeout)
            assert raw is not None, "EOF while waiting for a frame; stderr:\n" + self.stderr
            try:
                f = json.loads(raw)
            except ValueError:
                raise AssertionError("not a frame: %r" % raw) from None
            assert isinstance(f, dict) and "type" in f, raw
            if skip_logs and f["type"] == "log":
                continue
            return f

    def text(self, timeout=TIMEOUT):
        """Next line, decoded; for the evaluator's plain output."""
        raw = self.line(timeout)
        assert raw is not None, "EOF; stderr:\n" + self.stderr
        return raw.decode("utf-8")

    def no_more_output(self, timeout=0.3):
        try:
            extra = self.lines.get(timeout=timeout)
        except queue.Empty:
            return True
        raise AssertionError("unexpected output %r" % extra)

    def close_stdin(self):
        self.proc.stdin.close()

    def wait(self, timeout=TIMEOUT):
        status = self.proc.wait(timeout)
        self._err_reader.join(timeout)  # stderr is whole once its reader saw EOF
        return status

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reader.join(5)
        self._err_reader.join(5)
        for f in (self.proc.stdout, self.proc.stderr):
            f.close()


def start_host(tmp_path, source, module="tether_sdk.solution.host", expect_ready=True):
    """Start the solution host on a solution file made from source."""
    entry = tmp_path / "main.py"
    entry.write_text(textwrap.dedent(source))
    peer = Peer([sys.executable, "-m", module, "--entry", str(entry)], cwd=str(tmp_path))
    if expect_ready:
        assert peer.frame() == {"type": "ready"}
    return peer


def start_evaluator(tmp_path, source, env=None):
    """Start an evaluator script made from source."""
    script = tmp_path / "evaluate.py"
    script.write_text(textwrap.dedent(source))
    return Peer([sys.executable, str(script)], cwd=str(tmp_path), env=env)


def call(peer, call_id, fn, *args, skip_logs=True):
    peer.send({"type": "call", "id": call_id, "fn": fn, "args": list(args)})
    f = peer.frame(skip_logs=skip_logs)
    assert f.get("id") == call_id, f
    return f
