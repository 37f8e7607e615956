def run():
    # More open files than the 256 the open-files rlimit allows.
    held = []
    try:
        for _ in range(300):
            held.append(open("/dev/null"))
    except OSError:
        return "blocked"
    finally:
        for f in held:
            f.close()
    return "opened 300 files"
