"""Bytes and nested values cross in both directions with their types intact.

transform is declared in problem.json (records Meta, Inner, Transformed and
Stats), so solution.transform checks the arguments before sending them and
the answer when it comes back: a value of another type raises
ResultTypeError, which, uncaught, is WrongAnswer naming the field."""

from tether_sdk.evaluator import JudgeSystemError, RejectedError, result, solution

BLOBS = [b"", b"hello", bytes(range(256)), b"\x00" * 1000]


def expected(blob, meta):
    return {
        "reversed": blob[::-1],
        "complement": bytes(255 - b for b in blob),
        "meta": meta,
        "stats": {"raw": b"\x00\xff", "size": len(blob), "half": len(blob) / 2},
    }


def main():
    for i, blob in enumerate(BLOBS):
        meta = {"index": i, "tags": ["a", "é"], "inner": {"blob": blob[:4], "none": None, "ok": True}}
        try:
            got = solution.transform(blob, meta)
        except (JudgeSystemError, RejectedError) as e:
            result.runtime_error(str(e))
            return
        want = expected(blob, meta)
        if got != want or type(got["reversed"]) is not bytes or type(got["stats"]["half"]) is not float:
            result.wrong_answer("transform(blob %d) returned %r" % (i, got))
            return
    result.accept(100.0, blobs=len(BLOBS))


main()
