"""What the SDK's stand-in streams share (sys.stdout and its buffer on
either side): they are written only, never closed (close only flushes, since
what is behind them must outlive user code), and are not terminals."""


class WriteOnlyStream:
    """Mixin, placed before the io base class so that these win."""

    @property
    def closed(self):
        return False

    def writable(self):
        return True

    def readable(self):
        return False

    def seekable(self):
        return False

    def isatty(self):
        return False


class WriteOnlyBuffer(WriteOnlyStream):
    """Mixin for a stand-in ``buffer``: write() takes a bytes-like object
    (a str is a TypeError, as for io's buffers) and hands its bytes, when
    there are any, to ``_write_bytes``; close() only flushes."""

    def write(self, b):
        if isinstance(b, str):
            raise TypeError("a bytes-like object is required, not 'str'")
        data = bytes(memoryview(b))
        if data:
            self._write_bytes(data)
        return len(data)

    def close(self):
        self.flush()
