"""Drive a tether LM handler with rlm's own client functions.

Usage: python rlm_client.py HOST PORT
Prints one JSON object with what rlm's client saw; the Go interop test checks it.
Needs the real rlm package (PyPI rlms==0.1.3).
"""
import json
import socket
import sys

from rlm.core.comms_utils import (
    LMRequest,
    send_lm_request,
    send_lm_request_batched,
    socket_recv,
    socket_send,
)


def view(resp):
    out = {"success": resp.success, "error": resp.error}
    cc = resp.chat_completion
    if cc is not None:
        out.update(
            response=cc.response,
            root_model=cc.root_model,
            prompt=cc.prompt,
            calls=cc.usage_summary.model_usage_summaries[cc.root_model].total_calls,
            execution_time=cc.execution_time,
        )
    return out


def raw(addr, data):
    with socket.create_connection(addr, timeout=30) as sock:
        socket_send(sock, data)
        return socket_recv(sock)


def main():
    addr = (sys.argv[1], int(sys.argv[2]))
    result = {
        "single": view(send_lm_request(addr, LMRequest(prompt="hello rlm", depth=0))),
        "messages": view(
            send_lm_request(addr, LMRequest(prompt=[{"role": "user", "content": "caf\u00e9"}], depth=1))
        ),
        "batched": [view(r) for r in send_lm_request_batched(addr, ["one", "two boom", "three"])],
        "missing": view(send_lm_request(addr, LMRequest(depth=0))),
        "not_object": raw(addr, ["not", "an", "object"]),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
