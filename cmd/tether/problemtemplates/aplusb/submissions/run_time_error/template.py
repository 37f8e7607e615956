def add(a: int, b: int) -> int:
    """Return a + b. The numbers may be larger than 64 bits."""
    raise NotImplementedError
