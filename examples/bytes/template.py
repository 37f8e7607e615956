def transform(blob: bytes, meta: dict) -> dict:
    """Return {"reversed": blob reversed (bytes), "sha256": its SHA-256 digest (bytes),
    "nested": [meta, {"raw": b"\\x00\\xff", "size": len(blob), "half": len(blob) / 2}]}."""
    raise NotImplementedError
