def add(a: int, b: int) -> int:
    """Return a + b. Python ints have no size limit, and neither do the tests."""
    raise NotImplementedError
