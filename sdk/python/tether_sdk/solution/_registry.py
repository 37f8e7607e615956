"""The functions the evaluator may call, by name. Safe for concurrent use."""

import threading

_lock = threading.Lock()
_explicit = {}


def register(name_or_fn, fn=None):
    """Register a function for the evaluator to call.

    ``register(fn)`` uses ``fn.__name__``; ``register("name", fn)`` names it;
    both return fn, so ``@register`` works, and ``@register("name")`` too.
    Explicit registrations win over the top-level functions the host finds
    in the solution file. The latest registration of a name wins."""
    if fn is None and isinstance(name_or_fn, str):
        return lambda f: register(name_or_fn, f)
    if fn is None:
        fn, name = name_or_fn, getattr(name_or_fn, "__name__", None)
    else:
        name = name_or_fn
    if not isinstance(name, str) or not name:
        raise TypeError("register: name must be a non-empty str, not %r" % (name,))
    if not callable(fn):
        raise TypeError("register: %r is not callable" % (fn,))
    with _lock:
        _explicit[name] = fn
    return fn


def lookup(name):
    """The explicitly registered function called name, or None. A single
    dict read is atomic under the GIL: no lock and no copy per call."""
    return _explicit.get(name)
