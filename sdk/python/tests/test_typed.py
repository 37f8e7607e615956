"""The public API of tether_sdk is typed (PEP 561: tether_sdk/py.typed):
every public function and method has annotations for each parameter and
its return, and they resolve (typing.get_type_hints) on this Python."""

import importlib
import inspect
import os
import typing

import pytest

from conftest import SDK_DIR

MODULES = ["tether_sdk.errors", "tether_sdk.evaluator", "tether_sdk.evaluator.result", "tether_sdk.solution",
           "tether_sdk.codec", "tether_sdk.lm"]


def public_callables():
    seen = set()
    for name in MODULES:
        m = importlib.import_module(name)
        for attr in m.__all__:
            obj = getattr(m, attr)
            if inspect.isclass(obj):
                if not obj.__module__.startswith("tether_sdk"):
                    continue
                for meth_name, meth in vars(obj).items():
                    if (not meth_name.startswith("_") or meth_name == "__init__") and inspect.isfunction(meth):
                        key = "%s.%s.%s" % (obj.__module__, obj.__qualname__, meth_name)
                        if key not in seen:
                            seen.add(key)
                            yield key, meth
            elif inspect.isfunction(obj):
                key = "%s.%s" % (obj.__module__, obj.__qualname__)
                if key not in seen:
                    seen.add(key)
                    yield key, obj


CALLABLES = sorted(public_callables())


def test_py_typed_marker():
    assert os.path.isfile(os.path.join(SDK_DIR, "tether_sdk", "py.typed"))


@pytest.mark.parametrize("name, fn", CALLABLES, ids=[c[0] for c in CALLABLES])
def test_public_callable_is_annotated(name, fn):
    hints = typing.get_type_hints(fn)
    for p in list(inspect.signature(fn).parameters.values()):
        if p.name == "self":
            continue
        assert p.name in hints, "%s: parameter %s has no annotation" % (name, p.name)
    assert "return" in hints, "%s: no return annotation" % name
