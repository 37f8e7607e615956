import hashlib


def transform(blob, meta):
    assert isinstance(blob, bytes) and isinstance(meta["inner"]["blob"], bytes)
    return {
        "reversed": blob[::-1],
        "sha256": hashlib.sha256(blob).digest(),
        "nested": [meta, {"raw": b"\x00\xff", "size": len(blob), "half": len(blob) / 2}],
    }
