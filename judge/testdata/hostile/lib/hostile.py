"""What the hostile solutions share: not a solution itself. The hostile
suite puts this module on the solutions' PYTHONPATH, next to the SDK."""

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
