import json
import os

from hostile import protocol_out

FORGED = [
    {"type": "call", "id": "f1", "fn": "run", "args": []},
    {"type": "cap_reg", "name": "llm", "timeout_ms": 1},
    {"type": "result", "id": "never-asked", "value": "escaped"},
    {"type": "result", "id": "never-asked", "value": "escaped"},
    {"type": "error", "id": "never-asked", "code": "Exception", "message": "forged"},
    {"type": "ready"},
]


def run():
    out = protocol_out()
    for frame in FORGED:
        os.write(out, (json.dumps(frame) + "\n").encode())
    return "blocked"
