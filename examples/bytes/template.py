def transform(blob: bytes, meta: dict) -> dict:
    """Return {"reversed": blob reversed (bytes), "complement": 255 - b for each byte b (bytes),
    "meta": meta unchanged, "stats": {"raw": b"\\x00\\xff", "size": len(blob), "half": len(blob) / 2}}."""
    raise NotImplementedError
