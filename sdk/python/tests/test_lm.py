"""tether_sdk.lm against a real `tether lm serve` (echo backend).

The binary is $TETHER_BIN, or built from this checkout with `go build` when Go
is on PATH; without either the tests skip.
"""
import os
import shutil
import subprocess
import tempfile

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
