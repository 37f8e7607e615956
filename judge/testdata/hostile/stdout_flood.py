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


def run():
    out = protocol_out()
    chunk = b"flood flood flood " * 4096 + b"\n"
    while True:
        os.write(out, chunk)
