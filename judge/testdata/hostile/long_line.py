import os

from hostile import protocol_out


def run():
    out = protocol_out()
    chunk = b"x" * (1 << 20)
    for _ in range(100):  # 100 MiB, no newline
        os.write(out, chunk)
    os.write(out, b"\n")
    return "blocked"
