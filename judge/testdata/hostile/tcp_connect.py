import os
import socket


def run():
    try:
        socket.create_connection(("127.0.0.1", int(os.environ["TETHER_TEST_PORT"])), timeout=2).close()
        return "escaped: connected"
    except OSError:
        return "blocked"
