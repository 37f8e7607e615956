import os


def run():
    secret = os.environ["TETHER_TEST_SECRET"]
    for path in (secret, os.path.dirname(secret)):
        try:
            if os.path.isdir(path):
                return "escaped: listed %s" % os.listdir(path)
            with open(path) as f:
                return "escaped: " + f.read()
        except OSError:
            pass
    return "blocked"
