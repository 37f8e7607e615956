import os

from hostile import protocol_out


def run():
    out = protocol_out()
    os.write(out, b"\xff\xfe\x80 not utf-8\n")
    os.write(out, b"{\"type\": \"result\", \"id\": \"\xff\xfe\", \"value\": 1}\n")
    return "blocked"
