"""Language-model completions from inside a sandbox, through tether's LM handler.

The handler (``tether lm serve``, or the one ``tether judge`` starts for a
run) owns the model keys; this module only knows its address, taken from
``TETHER_LM_ADDR``: ``HOST:PORT`` or ``unix:PATH``. The wire is rlm's: a
4-byte big-endian length, then one UTF-8 JSON object, each way.

* ``completion(prompt, model=None)`` returns the completion dict and raises
  ``LMError`` when the handler answers with an error.
* ``llm_query`` / ``llm_query_batched`` behave as rlm's REPL functions:
  failures come back as strings starting with ``"Error: "``. Like rlm's
  REPL they send the REPL's depth, which routes them (rlm's rules send depth
  1 to the handler's "other" backend): the ``depth`` argument when given,
  else ``TETHER_LM_DEPTH`` when set (whoever starts a nested REPL sets it),
  else 1, rlm's REPL default (its root model is at depth 0).
* ``completion`` / ``completion_batched`` (and so ``request_llm_completion``)
  are root calls, as rlm's ``LMHandler.completion``: depth 0 unless the
  ``depth`` argument says otherwise; ``TETHER_LM_DEPTH`` does not apply.
* ``request_llm_completion`` is a ready capability handler; an evaluator
  offers it with one line: ``tether_sdk.lm.register()``.

Each call opens its own connection, so the functions are safe to use from
several threads at once. Standard library only.
"""

from __future__ import annotations

import json
import os
import socket
import struct
from typing import Any, Dict, Iterable, List, Optional, Union

__all__ = [
    "LMError",
    "completion",
    "completion_batched",
    "llm_query",
    "llm_query_batched",
    "request_llm_completion",
    "register",
]

ADDR_ENV = "TETHER_LM_ADDR"
DEPTH_ENV = "TETHER_LM_DEPTH"
REPL_DEPTH = 1  # rlm's LocalREPL default: one below the root model
DEFAULT_TIMEOUT = 300.0  # seconds, rlm's client default
_HEADER = struct.Struct(">I")

# A prompt: the text, or chat messages ({"role": ..., "content": ...}).
Prompt = Union[str, List[Dict[str, Any]]]


class LMError(Exception):
    """The handler answered with an error, or could not be reached."""


def _address(addr):
    addr = addr or os.environ.get(ADDR_ENV, "")
    if not addr:
        raise LMError("No LM handler configured (set %s)" % ADDR_ENV)
    if addr.startswith("unix:"):
        return socket.AF_UNIX, addr[len("unix:"):]
    host, sep, port = addr.rpartition(":")
    if not sep or not port.isdigit():
        raise LMError("LM handler address %r is not HOST:PORT or unix:PATH" % addr)
    return socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET, (host.strip("[]"), int(port))


def _recv_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise LMError("Connection closed before message complete")
        buf += chunk
    return bytes(buf)


def _request(data, addr=None, timeout=DEFAULT_TIMEOUT):
    """Send one request object and return the response object."""
    family, target = _address(addr)
    payload = json.dumps(data).encode("utf-8")
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(target)
            sock.sendall(_HEADER.pack(len(payload)) + payload)
            (length,) = _HEADER.unpack(_recv_exact(sock, _HEADER.size))
            resp = json.loads(_recv_exact(sock, length).decode("utf-8"))
    except (OSError, ValueError) as e:
        raise LMError("Request failed: %s" % e) from e
    if not isinstance(resp, dict):
        raise LMError("Request failed: response is not a JSON object")
    if resp.get("error") is not None:
        raise LMError(resp["error"])
    return resp


def _check_depth(depth):
    if isinstance(depth, bool) or not isinstance(depth, int):
        raise LMError("depth must be an int, not %s" % type(depth).__name__)
    return depth


def _repl_depth(depth=None):
    """The depth llm_query sends: ``depth``, else $TETHER_LM_DEPTH, else rlm's REPL default 1."""
    if depth is not None:
        return _check_depth(depth)
    env = os.environ.get(DEPTH_ENV, "").strip()
    if not env:
        return REPL_DEPTH
    try:
        return int(env)
    except ValueError:
        raise LMError("%s=%r is not an integer" % (DEPTH_ENV, env)) from None


def _request_dict(prompt=None, prompts=None, model=None, depth=0):
    d = {}
    if prompt is not None:
        d["prompt"] = prompt
    if prompts is not None:
        d["prompts"] = list(prompts)
    if model is not None:
        d["model"] = model
    d["depth"] = _check_depth(depth)
    return d


def completion(prompt: Prompt, model: Optional[str] = None, depth: int = 0, addr: Optional[str] = None,
               timeout: float = DEFAULT_TIMEOUT) -> Dict[str, Any]:
    """Return the completion dict (``response``, ``root_model``, ``usage_summary``...) for one prompt.

    ``prompt`` is a string or a list of chat message dicts. Raises LMError.
    """
    resp = _request(_request_dict(prompt=prompt, model=model, depth=depth), addr, timeout)
    cc = resp.get("chat_completion")
    if not isinstance(cc, dict):
        raise LMError("Request failed: response has no chat_completion")
    return cc


def completion_batched(prompts: Iterable[Prompt], model: Optional[str] = None, depth: int = 0,
                       addr: Optional[str] = None, timeout: float = DEFAULT_TIMEOUT) -> List[Dict[str, Any]]:
    """Return one completion dict per prompt, in order; a failed prompt's dict has ``error`` set."""
    prompts = list(prompts)
    resp = _request(_request_dict(prompts=prompts, model=model, depth=depth), addr, timeout)
    ccs = resp.get("chat_completions")
    if not isinstance(ccs, list) or len(ccs) != len(prompts):
        raise LMError("Request failed: expected %d completions" % len(prompts))
    return ccs


def llm_query(prompt: Prompt, model: Optional[str] = None, depth: Optional[int] = None) -> str:
    """rlm's ``llm_query``: the response text, or ``"Error: ..."``.

    ``depth`` defaults to $TETHER_LM_DEPTH, else 1 (rlm's REPL depth).
    """
    try:
        return completion(prompt, model=model, depth=_repl_depth(depth))["response"]
    except LMError as e:
        return "Error: %s" % e


def llm_query_batched(prompts: Iterable[Prompt], model: Optional[str] = None, depth: Optional[int] = None) -> List[str]:
    """rlm's ``llm_query_batched``: one response text or ``"Error: ..."`` per prompt, in order.

    ``depth`` defaults to $TETHER_LM_DEPTH, else 1 (rlm's REPL depth).
    """
    prompts = list(prompts)
    try:
        ccs = completion_batched(prompts, model=model, depth=_repl_depth(depth))
    except LMError as e:
        return ["Error: %s" % e] * len(prompts)
    return ["Error: %s" % cc["error"] if cc.get("error") else cc.get("response", "") for cc in ccs]


def request_llm_completion(prompt: Prompt, model: Optional[str] = None) -> str:
    """Capability handler: the response text; a failure raises LMError, which the
    solution receives as the capability's error."""
    if not isinstance(prompt, (str, list)):
        raise TypeError("prompt must be a str or a list of messages, not %s" % type(prompt).__name__)
    if model is not None and not isinstance(model, str):
        raise TypeError("model must be a str or None")
    return completion(prompt, model=model)["response"]


def register(name: str = "request_llm_completion", timeout_ms: Optional[int] = None) -> None:
    """Offer ``request_llm_completion`` to the solution (evaluator side, one line)."""
    from tether_sdk.evaluator import register_capability

    register_capability(name, request_llm_completion, timeout_ms=timeout_ms)
