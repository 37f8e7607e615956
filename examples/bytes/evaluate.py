"""Bytes and nested values cross in both directions with their types intact."""

import hashlib

from tether_sdk.evaluator import RejectedError, SolutionRunner, JudgeSystemError, result

BLOBS = [b"", b"hello", bytes(range(256)), b"\x00" * 1000]


def expected(blob, meta):
    return {
        "reversed": blob[::-1],
        "sha256": hashlib.sha256(blob).digest(),
        "nested": [meta, {"raw": b"\x00\xff", "size": len(blob), "half": len(blob) / 2}],
    }


def main():
    runner = SolutionRunner()
    for i, blob in enumerate(BLOBS):
        meta = {"index": i, "tags": ["a", "é"], "inner": {"blob": blob[:4], "none": None, "ok": True}}
        try:
            got = runner.call("transform", blob, meta)
        except (JudgeSystemError, RejectedError) as e:
            result.runtime_error(str(e))
            return
        want = expected(blob, meta)
        if got != want or type(got["reversed"]) is not bytes or type(got["nested"][1]["half"]) is not float:
            result.wrong_answer("transform(blob %d) returned %r" % (i, got))
            return
    result.accept(100.0, blobs=len(BLOBS))


main()
