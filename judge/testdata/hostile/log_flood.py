import os

from hostile import protocol_out


def run():
    # Log frames that cost nothing under a budget of their data alone: 1 MB
    # stream names, 1 MB extra members (each over a call's 64 KiB, together
    # over a run's 1 MiB), and 20,000 empty frames (more than a run keeps,
    # 16,384). Few enough that a loaded machine under the race detector gets
    # through them within the 3 s call: 32 MB and 100,000 frames did not.
    out = protocol_out()
    long_stream = ('{"type":"log","stream":"' + "s" * 1000000 + '","data":""}\n').encode()
    extra = ('{"type":"log","stream":"stdout","data":"","pad":"' + "p" * 1000000 + '"}\n').encode()
    for _ in range(4):
        os.write(out, long_stream)
        os.write(out, extra)
    empty = b'{"type":"log","stream":"stdout","data":""}\n' * 1000
    for _ in range(20):
        os.write(out, empty)
    return "blocked"
