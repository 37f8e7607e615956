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
