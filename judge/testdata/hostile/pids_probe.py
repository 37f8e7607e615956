import os
import time


def run():
    # Forks children that stay alive: the pids limit (64) must stop it
    # before 100. The sandbox kills the children when the run ends.
    for n in range(100):
        try:
            pid = os.fork()
        except OSError:
            return "blocked"
        if pid == 0:
            time.sleep(60)
            os._exit(0)
    return "forked %d processes" % n
