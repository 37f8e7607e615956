def transform(blob, meta):
    assert isinstance(blob, bytes) and isinstance(meta["inner"]["blob"], bytes)
    return {
        "reversed": blob[::-1],
        "complement": bytes(255 - b for b in blob),
        "meta": meta,
        "stats": {"raw": b"\x00\xff", "size": len(blob), "half": len(blob) / 2},
    }
