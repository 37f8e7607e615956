import os


def run():
    secret_dir = os.path.dirname(os.environ["TETHER_TEST_SECRET"])
    for path in ("/tmp/tether-escape", "/escape", "/usr/escape", os.path.join(secret_dir, "escape")):
        try:
            with open(path, "w") as f:
                f.write("x")
            return "escaped: wrote " + path
        except OSError:
            pass
    with open("inside.txt", "w") as f:  # its own dir is writable
        f.write("x")
    return "blocked"
