import os
import signal


def run():
    os.kill(os.getpid(), signal.SIGKILL)
