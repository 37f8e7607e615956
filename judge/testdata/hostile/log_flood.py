import fcntl
import os
import stat


def protocol_out():
    """The SDK keeps the protocol on a private duplicate of fd 1: find the
    writable pipe a hostile program would."""
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                return fd
        except OSError:
            pass
    raise RuntimeError("no protocol fd")


def run():
    # Log frames that cost nothing under a budget of their data alone: 1 MB
    # stream names, 1 MB extra members, and 100,000 empty frames.
    out = protocol_out()
    long_stream = ('{"type":"log","stream":"' + "s" * 1000000 + '","data":""}\n').encode()
    extra = ('{"type":"log","stream":"stdout","data":"","pad":"' + "p" * 1000000 + '"}\n').encode()
    for _ in range(16):
        os.write(out, long_stream)
        os.write(out, extra)
    empty = b'{"type":"log","stream":"stdout","data":""}\n' * 1000
    for _ in range(100):
        os.write(out, empty)
    return "blocked"
