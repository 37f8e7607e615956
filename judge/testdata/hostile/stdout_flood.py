import os

from hostile import protocol_out


def run():
    out = protocol_out()
    chunk = b"flood flood flood " * 4096 + b"\n"
    while True:
        os.write(out, chunk)
