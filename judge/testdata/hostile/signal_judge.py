import os
import signal


def run():
    judge = int(os.environ["TETHER_TEST_JUDGE_PID"])
    for target in (judge, -judge):
        try:
            os.kill(target, signal.SIGKILL)
            return "escaped: signalled %d" % target
        except OSError:
            pass
    try:
        os.kill(-1, signal.SIGKILL)  # everything it may signal: only its own children here
    except OSError:
        pass
    return "blocked"
