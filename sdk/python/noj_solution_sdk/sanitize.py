"""``noj_solution_sdk.sanitize``: sanitize_trace, the traceback the host
sends back (absolute paths cut to file names, bounded; ``tether_sdk._trace``)."""

import sys

from tether_sdk._trace import format_trace

__all__ = ["sanitize_trace"]


def sanitize_trace(exc=None):
    """The sanitized traceback of exc, or of the exception being handled
    when exc is None ("" when there is none)."""
    if exc is None:
        exc = sys.exc_info()[1]
        if exc is None:
            return ""
    return format_trace(exc)
