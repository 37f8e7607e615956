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
    os.write(out, b"\xff\xfe\x80 not utf-8\n")
    os.write(out, b"{\"type\": \"result\", \"id\": \"\xff\xfe\", \"value\": 1}\n")
    return "blocked"
