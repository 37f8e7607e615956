import os

from hostile import protocol_out


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
