import fcntl
import os
import stat


def protocol_out():
    """The SDK keeps the protocol on a private duplicate of fd 1 (fd 1
    itself is /dev/null): find the writable pipe a hostile program would."""
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                return fd
        except OSError:
            pass
    raise RuntimeError("no protocol fd")

import json

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
