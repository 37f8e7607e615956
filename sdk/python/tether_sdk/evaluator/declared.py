"""Typed calls of the problem's declared functions (problem.json "functions").

    from tether_sdk.evaluator import solution, result

    if solution.add(1, 2) == 3:
        result.accept()

The judge hands the declaration to the evaluator in the TETHER_FUNCTIONS
variable (docs/protocol/judge.md, "Declared functions"). Each typed call
checks its arguments before anything is sent: a wrong one raises
ArgumentTypeError naming the function, the parameter and its type (a bug
of the problem, not of the solution). An int passed for a float parameter
is sent as a float. The answer is checked against the result type: a
solution's value of another type raises ResultTypeError, which, left
uncaught, ends the evaluation as WrongAnswer with its message ("add
returned a string, expected an integer"). ``runner.call(name, ...)``
stays untyped, and so is every ``solution.NAME(...)`` when no declaration
reached the evaluator (a judge that passes none, such as Neuro OJ), so an
evaluator written this way runs there too.
"""

import json
import os
import sys
import threading

from ..errors import TetherError

__all__ = ["solution", "Solution", "ArgumentTypeError", "ResultTypeError", "ENV"]

ENV = "TETHER_FUNCTIONS"

_SCALARS = ("int", "bigint", "float", "bool", "string", "bytes", "any")
_INT64 = (-(2**63), 2**63 - 1)


class ArgumentTypeError(TypeError):
    """An argument of a typed call does not fit its declared parameter:
    the evaluator is wrong, nothing was sent."""


class ResultTypeError(TetherError):
    """The solution returned a value of another type than the declared
    result. Uncaught, the evaluation ends as WrongAnswer with the message."""

    code = None


class _Mismatch(Exception):
    def __init__(self, path, got, want):
        super().__init__(path)
        self.path, self.got, self.want = path, got, want

    def __str__(self):
        head = self.path + ": " if self.path else ""
        return "%swant %s, got %s" % (head, self.want, self.got)


def _type_name(t):
    """The type as problem.json writes it: list<int>, map<string,Point>."""
    if isinstance(t, str):
        return t
    (kind, elem), = t.items()
    if kind == "record":
        return elem
    if kind == "map":
        return "map<string,%s>" % _type_name(elem)
    return "%s<%s>" % (kind, _type_name(elem))


def _describe(t):
    """The type in words, as the judge's Go side says it (package sig)."""
    if isinstance(t, str):
        return {"int": "an integer", "bigint": "an integer", "float": "a float", "bool": "a boolean",
                "string": "a string", "bytes": "bytes"}.get(t, "any value")
    (kind, elem), = t.items()
    if kind == "list":
        return "a list"
    if kind == "map":
        return "a map"
    if kind == "optional":
        return _describe(elem) + " or null"
    return "a %s record" % elem


def _describe_value(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer" if _INT64[0] <= v <= _INT64[1] else "an integer out of the 64-bit range"
    if isinstance(v, float):
        return "a float"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, (bytes, bytearray)):
        return "bytes"
    if isinstance(v, (list, tuple)):
        return "a list"
    if isinstance(v, dict):
        return "a map"
    return "a " + type(v).__name__


class _Declaration:
    def __init__(self, doc):
        self.functions = {f["name"]: f for f in doc.get("functions") or []}
        self.types = doc.get("types") or {}

    def check(self, t, v, path=""):
        """v as t wants it (ints become floats where a float is declared);
        raises _Mismatch."""

        def bad():
            return _Mismatch(path, _describe_value(v), _describe(t))

        if isinstance(t, str):
            if t == "any":
                return v
            if t in ("int", "bigint"):
                if isinstance(v, int) and not isinstance(v, bool) and (t == "bigint" or _INT64[0] <= v <= _INT64[1]):
                    return v
                raise bad()
            if t == "float":
                if isinstance(v, float):
                    return v
                if isinstance(v, int) and not isinstance(v, bool):
                    try:
                        return float(v)
                    except OverflowError:
                        raise bad() from None
                raise bad()
            want = {"bool": bool, "string": str, "bytes": (bytes, bytearray)}[t]
            if isinstance(v, want):
                return v
            raise bad()
        (kind, elem), = t.items()
        if kind == "optional":
            if v is None:
                return None
            try:
                return self.check(elem, v, path)
            except _Mismatch as m:
                if m.path == path:
                    m.want = _describe(t)
                raise
        if kind == "list":
            if not isinstance(v, list):
                raise bad()
            return [self.check(elem, e, "%s[%d]" % (path, i)) for i, e in enumerate(v)]
        if kind == "map":
            if not isinstance(v, dict):
                raise bad()
            return {k: self.check(elem, v[k], "%s[%s]" % (path, json.dumps(k, ensure_ascii=False))) for k in sorted(v)}
        # a record
        fields = (self.types.get(elem) or {}).get("fields") or []
        if not isinstance(v, dict):
            raise bad()
        out, known = dict(v), set()
        for f in fields:
            known.add(f["name"])
            at = path + "." + f["name"]
            if f["name"] not in v:
                if isinstance(f["type"], dict) and "optional" in f["type"] or f["type"] == "any":
                    continue
                raise _Mismatch(at, "nothing (the field is missing)", _describe(f["type"]))
            out[f["name"]] = self.check(f["type"], v[f["name"]], at)
        for k in sorted(v):
            if k not in known:
                raise _Mismatch(path + "." + str(k), "a field %s does not have" % elem, "only the fields of " + elem)
        return out

    def check_args(self, fn, args):
        f = self.functions[fn]
        params = f["params"]
        if len(args) != len(params):
            raise ArgumentTypeError("%s takes %d arguments (%s), got %d" % (fn, len(params), _signature(f), len(args)))
        out = []
        for p, a in zip(params, args):
            try:
                out.append(self.check(p["type"], a))
            except _Mismatch as m:
                raise ArgumentTypeError("%s: parameter %s (%s): %s" % (fn, p["name"], _type_name(p["type"]), m)) from None
        return out

    def check_result(self, fn, v):
        t = self.functions[fn].get("result")
        if t is None:
            if v is None:
                return None
            raise ResultTypeError("%s returned %s, expected nothing (null)" % (fn, _describe_value(v)))
        try:
            return self.check(t, v)
        except _Mismatch as m:
            at = " at " + m.path if m.path else ""
            raise ResultTypeError("%s returned %s%s, expected %s" % (fn, m.got, at, m.want)) from None


def _signature(f):
    params = ", ".join("%s: %s" % (p["name"], _type_name(p["type"])) for p in f["params"])
    result = " -> " + _type_name(f["result"]) if f.get("result") is not None else ""
    return "%s(%s)%s" % (f["name"], params, result)


def _load():
    text = os.environ.get(ENV)
    if not text:
        return None
    return _Declaration(json.loads(text))


class Solution:
    """The solution's declared functions as methods: ``solution.add(1, 2)``,
    with ``timeout_ms=`` as for ``SolutionRunner.call``. ``runner`` is the
    SolutionRunner to call through (default: one of its own, made at the
    first call); ``declaration`` the parsed TETHER_FUNCTIONS text (default:
    the environment's)."""

    def __init__(self, runner=None, declaration=None):
        self._runner = runner
        self._decl = _Declaration(json.loads(declaration)) if declaration is not None else None
        self._lock = threading.Lock()

    def _declaration(self):
        with self._lock:
            if self._decl is None:
                self._decl = _load()
            return self._decl

    def _get_runner(self):
        with self._lock:
            if self._runner is None:
                from .runner import SolutionRunner

                self._runner = SolutionRunner()
            return self._runner

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        decl = self._declaration()
        if decl is None:
            # No declaration reached this evaluator (a judge that passes
            # none, such as Neuro OJ): the call goes out unchecked.
            def untyped(*args, timeout_ms=None):
                return self._get_runner().call(name, *args, timeout_ms=timeout_ms)

            untyped.__name__ = name
            return untyped
        if name not in decl.functions:
            raise AttributeError("%s is not a declared function (declared: %s)" % (name, ", ".join(decl.functions)))

        def call(*args, timeout_ms=None):
            checked = decl.check_args(name, args)
            _install_hook()
            return decl.check_result(name, self._get_runner().call(name, *checked, timeout_ms=timeout_ms))

        call.__name__ = name
        call.__doc__ = _signature(decl.functions[name])
        return call

    def __dir__(self):
        decl = self._declaration()
        return sorted(decl.functions) if decl else []


solution = Solution()

_hook_lock = threading.Lock()
_hooked = False


def _install_hook():
    """An uncaught ResultTypeError is WrongAnswer with its message (once a
    typed call has been made)."""
    global _hooked
    with _hook_lock:
        if _hooked:
            return
        _hooked = True
        previous = sys.excepthook

        def hook(kind, value, tb):
            if isinstance(value, ResultTypeError):
                from . import result

                if not result.written():
                    result.wrong_answer(str(value))
            previous(kind, value, tb)

        sys.excepthook = hook
