def run():
    # 17 MiB into the solution's own work dir: over the 16 MiB file size
    # rlimit. Python ignores SIGXFSZ, so the write fails with EFBIG.
    chunk = b"x" * (1 << 20)
    try:
        with open("big.bin", "wb") as f:
            for _ in range(17):
                f.write(chunk)
                f.flush()
    except OSError:
        return "blocked"
    return "wrote 17 MiB"
