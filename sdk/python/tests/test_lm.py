"""tether_sdk.lm against a real `tether lm serve` (echo backend), and the
depth it writes on the wire against a recording fake handler.

The binary is $TETHER_BIN, or built from this checkout with `go build` when Go
is on PATH; without either those tests skip (the depth tests need no binary).
"""
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import threading

import pytest

from tether_sdk import lm

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


@pytest.fixture(scope="module")
def tether_bin(tmp_path_factory):
    path = os.environ.get("TETHER_BIN")
    if path:
        return path
    if shutil.which("go") is None:
        pytest.skip("no TETHER_BIN and no go to build tether")
    out = str(tmp_path_factory.mktemp("bin") / "tether")
    subprocess.run(["go", "build", "-o", out, "./cmd/tether"], cwd=REPO_ROOT, check=True)
    return out


class Handler:
    def __init__(self, binary, *args):
        self.proc = subprocess.Popen(
            [binary, "lm", "serve", "--echo-fail-on", "boom"] + list(args),
            stdout=subprocess.PIPE,
            text=True,
        )
        self.addr = self.proc.stdout.readline().strip()
        assert self.addr, "tether lm serve printed no address"

    def close(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.proc.stdout.close()


@pytest.fixture
def handler(tether_bin, monkeypatch):
    h = Handler(tether_bin, "--listen", "127.0.0.1:0")
    monkeypatch.setenv(lm.ADDR_ENV, h.addr)
    yield h
    h.close()


def test_llm_query(handler):
    assert lm.llm_query("caf\u00e9 au lait") == "caf\u00e9 au lait"
    assert lm.llm_query([{"role": "system", "content": "x"}, {"role": "user", "content": "hi"}]) == "hi"


def test_completion_shape(handler):
    cc = lm.completion("two words")
    assert cc["response"] == "two words"
    assert cc["root_model"] == "echo"
    assert cc["prompt"] == "two words"
    assert cc["usage_summary"]["model_usage_summaries"]["echo"]["total_calls"] == 1
    assert "error" not in cc


def test_llm_query_batched_with_failing_slot(handler):
    got = lm.llm_query_batched(["one", "two boom", "three"])
    assert got[0] == "one" and got[2] == "three"
    assert got[1].startswith("Error: llm() call failed - ")


def test_error_response_becomes_error_string(handler):
    assert lm.llm_query("") == "Error: Missing 'prompt' or 'prompts' in request."
    with pytest.raises(lm.LMError) as info:
        lm.completion("")
    assert str(info.value) == "Missing 'prompt' or 'prompts' in request."


def test_no_address(monkeypatch):
    monkeypatch.delenv(lm.ADDR_ENV, raising=False)
    assert lm.llm_query("x").startswith("Error: No LM handler configured")
    assert lm.llm_query_batched(["a", "b"]) == [lm.llm_query("x")] * 2


def test_unreachable_address(monkeypatch):
    monkeypatch.setenv(lm.ADDR_ENV, "unix:/nonexistent/lm.sock")
    assert lm.llm_query("x").startswith("Error: Request failed: ")
    monkeypatch.setenv(lm.ADDR_ENV, "no-port")
    assert lm.llm_query("x").startswith("Error: LM handler address")


def test_unix_socket(tether_bin, monkeypatch):
    d = tempfile.mkdtemp()
    h = Handler(tether_bin, "--listen", "unix:" + os.path.join(d, "lm.sock"))
    try:
        assert h.addr.startswith("unix:")
        monkeypatch.setenv(lm.ADDR_ENV, h.addr)
        assert lm.llm_query("over a socket file") == "over a socket file"
    finally:
        h.close()
        shutil.rmtree(d)


def test_capability_handler_and_budget(tether_bin, monkeypatch):
    h = Handler(tether_bin, "--listen", "127.0.0.1:0", "--budget-calls", "1")
    try:
        monkeypatch.setenv(lm.ADDR_ENV, h.addr)
        assert lm.request_llm_completion("first") == "first"
        with pytest.raises(lm.LMError) as info:
            lm.request_llm_completion("second")
        assert "budget" in str(info.value)
        with pytest.raises(TypeError):
            lm.request_llm_completion(42)
    finally:
        h.close()


class Recorder:
    """A fake LM handler: records every request object and echoes its prompt(s)."""

    def __init__(self):
        self.requests = []
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.addr = "127.0.0.1:%d" % self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @staticmethod
    def _completion(prompt):
        return {"root_model": "rec", "prompt": prompt, "response": str(prompt),
                "usage_summary": {"model_usage_summaries": {}}, "execution_time": 0.0}

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                (n,) = struct.unpack(">I", lm._recv_exact(conn, 4))
                req = json.loads(lm._recv_exact(conn, n))
                self.requests.append(req)
                resp = {"chat_completion": None, "chat_completions": None, "error": None}
                if req.get("prompts"):
                    resp["chat_completions"] = [self._completion(p) for p in req["prompts"]]
                else:
                    resp["chat_completion"] = self._completion(req.get("prompt"))
                body = json.dumps(resp).encode()
                conn.sendall(struct.pack(">I", len(body)) + body)

    def depths(self):
        return [r["depth"] for r in self.requests]

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept()
        except OSError:
            pass
        self.sock.close()
        self.thread.join(timeout=10)
        assert not self.thread.is_alive()


@pytest.fixture
def recorder(monkeypatch):
    r = Recorder()
    monkeypatch.setenv(lm.ADDR_ENV, r.addr)
    monkeypatch.delenv(lm.DEPTH_ENV, raising=False)
    yield r
    r.close()


def test_repl_functions_send_rlm_repl_depth(recorder):
    # rlm's REPL (LocalREPL, depth=1) writes depth 1: its calls are sub-calls
    # of the root model, which rlm's routing sends to the "other" backend.
    assert lm.llm_query("a") == "a"
    assert lm.llm_query_batched(["b", "c"]) == ["b", "c"]
    assert recorder.depths() == [1, 1]
    assert all(type(d) is int for d in recorder.depths())


def test_repl_depth_from_environment_root_calls_stay_zero(recorder, monkeypatch):
    monkeypatch.setenv(lm.DEPTH_ENV, "3")
    lm.llm_query("a")
    lm.llm_query_batched(["b"])
    # completion & co. are root calls (rlm's LMHandler.completion): the REPL's
    # depth does not apply to them.
    lm.completion("c")
    lm.completion_batched(["d"])
    lm.request_llm_completion("e")
    lm.completion("f", depth=5)
    assert recorder.depths() == [3, 3, 0, 0, 0, 5]


def test_repl_depth_argument_wins(recorder, monkeypatch):
    monkeypatch.setenv(lm.DEPTH_ENV, "3")
    lm.llm_query("a", depth=2)
    lm.llm_query_batched(["b"], depth=0)
    assert recorder.depths() == [2, 0]


def test_bad_depth_is_an_error_string(recorder, monkeypatch):
    monkeypatch.setenv(lm.DEPTH_ENV, "one")
    assert lm.llm_query("a") == "Error: TETHER_LM_DEPTH='one' is not an integer"
    assert lm.llm_query_batched(["a", "b"]) == [lm.llm_query("a")] * 2
    monkeypatch.delenv(lm.DEPTH_ENV)
    assert lm.llm_query("a", depth="1").startswith("Error: depth must be an int")
    assert lm.llm_query("a", depth=True).startswith("Error: depth must be an int")
    assert recorder.requests == []
