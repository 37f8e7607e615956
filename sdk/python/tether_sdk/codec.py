"""The transferable-value codec of the dual protocol (docs/protocol/judge.md, "Transferable values").

Transferable: None, bool, int, finite float, str, bytes, list (recursive) and
dict with str keys (recursive). bytes travel as ``{"__bytes__": "<base64>"}``.
Everything else -- NaN and +-Infinity, non-str keys, tuple, set, any other
object -- is refused with ``RejectedError`` whose message starts with the path
of the offending value (``args[2]["x"]: NaN is not transferable``).

Encoding is canonical and equal to Go's: compact separators, keys sorted,
UTF-8 kept (no \\u escapes except where JSON requires them), never NaN.

The bytes wrapper collides with a user dict whose only key is ``"__bytes__"``
holding a str: such a dict would arrive as bytes, so the encoder refuses it
(``dict with the single key "__bytes__" is reserved``). A ``"__bytes__"`` key
next to other keys, or holding a non-str, is an ordinary dict both ways.

All functions are pure and safe to call from any thread.
"""

from __future__ import annotations

import base64
import binascii
import gc
import json
import math
import re
from typing import Any, Dict, Optional, Sequence, Union

from ._trace import clip, exception_line
from ._trace import type_name as _type_name
from .errors import RejectedError

__all__ = ["encode", "encode_args", "decode", "decode_frame", "format_path", "BYTES_KEY"]

BYTES_KEY = "__bytes__"
MAX_DEPTH = 512  # lists/maps nested deeper are refused ("[]" is depth 1)
QUICK_DEPTH = 16  # nesting the fast depth check settles by itself
GC_PAUSE_SIZE = 1 << 16  # decoding a longer text pauses the cyclic collector
MAX_INT_DIGITS = 4300  # Python's default int <-> str limit
_INT_LIMIT = 10**MAX_INT_DIGITS

_dumps = json.JSONEncoder(
    separators=(",", ":"), ensure_ascii=False, sort_keys=True, allow_nan=False
).encode
_quote = json.encoder.encode_basestring  # the C quoting the encoder itself uses
_int_repr = int.__repr__
_float_repr = float.__repr__
_isfinite = math.isfinite


def _scalar(v):
    """JSON text of a simple scalar the encoder would write identically
    (None, bool, int within the digit cap, finite float, ASCII str), else
    None: the common case skips the copying walk and the JSONEncoder."""
    t = type(v)
    if t is int:
        if -_INT_LIMIT < v < _INT_LIMIT:
            return _int_repr(v)
        return None
    if t is str:
        return _quote(v) if v.isascii() else None
    if v is None:
        return "null"
    if t is bool:
        return "true" if v else "false"
    if t is float and _isfinite(v):
        return _float_repr(v)
    return None


def format_path(root: str, parts: Sequence[Union[str, int]]) -> str:
    """``args`` + [2, "x"] -> ``args[2]["x"]``."""
    out = [root]
    for p in parts:
        if isinstance(p, int):
            out.append("[%d]" % p)
        else:
            out.append("[" + json.dumps(p, ensure_ascii=False) + "]")
    return "".join(out)


class _Refused(Exception):
    def __init__(self, parts, reason):
        super().__init__(reason)
        self.parts = parts
        self.reason = reason


def _float_reason(v):
    if v != v:
        return "NaN is not transferable"
    return ("Infinity" if v > 0 else "-Infinity") + " is not transferable"


def _plain(v, parts):
    """A JSON-ready copy of v (bytes wrapped), or _Refused. ``parts`` is the
    path stack, copied only on failure."""
    t = type(v)
    if t is str or t is bool or v is None:
        return v
    if t is int:
        if -_INT_LIMIT < v < _INT_LIMIT:
            return v
        raise _Refused(list(parts), "integer has more than %d digits" % MAX_INT_DIGITS)
    if t is float:
        if math.isfinite(v):
            return v
        raise _Refused(list(parts), _float_reason(v))
    if t is list:
        if len(parts) >= MAX_DEPTH:
            raise _Refused(list(parts), "nesting too deep (more than %d)" % MAX_DEPTH)
        out = []
        parts.append(0)
        for i, x in enumerate(v):
            parts[-1] = i
            out.append(_plain(x, parts))
        parts.pop()
        return out
    if t is dict:
        return _plain_dict(v, parts)
    if t is bytes:
        return {BYTES_KEY: base64.b64encode(v).decode("ascii")}
    # Subclasses of the allowed types (IntEnum, OrderedDict, str subclasses...)
    # are sent as their base type; tuple/set/others are refused. Converting
    # one runs user code (__int__, __str__, __iter__, items()...): whatever
    # that raises is refused too, naming the method that failed.
    if isinstance(v, bool):
        return bool(v)
    if isinstance(v, int):
        return _plain(_convert(int, v, "int", "__int__()", parts), parts)
    if isinstance(v, float):
        return _plain(_convert(float, v, "float", "__float__()", parts), parts)
    if isinstance(v, str):
        return _convert(_exact_str, v, "str", "__str__()", parts)
    if isinstance(v, bytes):
        return {BYTES_KEY: base64.b64encode(_convert(bytes, v, "bytes", "__bytes__()", parts)).decode("ascii")}
    if isinstance(v, list):
        return _plain(_convert(list, v, "list", "iteration", parts), parts)
    if isinstance(v, dict):
        return _plain_dict(v, parts)
    raise _Refused(list(parts), "%s is not transferable" % _type_name(v))


def _exact_str(v):
    s = str(v)
    return str.__str__(s)  # an exact str even if __str__ returned a subclass


def _items(v):
    return [(k, x) for k, x in v.items()]


def _convert(fn, v, base, what, parts):
    """fn(v) for a subclass instance v of base; _Refused when user code fails."""
    try:
        return fn(v)
    except Exception as e:  # noqa: BLE001 - hostile user methods are a refusal, never a crash
        raise _Refused(list(parts), "%s subclass %s: %s raised %s" % (base, _type_name(v), what, exception_line(e, 200))) from None


def _plain_dict(v, parts):
    if len(parts) >= MAX_DEPTH:
        raise _Refused(list(parts), "nesting too deep (more than %d)" % MAX_DEPTH)
    out = {}
    # An exact dict iterates as is; a subclass's items() is user code.
    pairs = v.items() if type(v) is dict else _convert(_items, v, "dict", "items()", parts)
    for k, x in pairs:
        if type(k) is not str:
            if not isinstance(k, str):
                raise _Refused(list(parts), "non-string key %s (%s)" % (_key_repr(k), _type_name(k)))
            k = _convert(_exact_str, k, "str", "__str__() of a key", parts)
        parts.append(k)
        out[k] = _plain(x, parts)
        parts.pop()
    if len(out) == 1 and isinstance(out.get(BYTES_KEY), str):
        raise _Refused(list(parts), 'a dict whose only key is "__bytes__" with a str value is reserved for bytes')
    return out


def encode(value: Any, root: str = "value") -> str:
    """Canonical JSON text of one transferable value; RejectedError naming
    the path (rooted at ``root``) otherwise."""
    text = _scalar(value)
    if text is not None:
        return text
    try:
        text = _dumps(_plain(value, []))
        text.encode("utf-8")  # lone surrogates cannot cross
        return text
    except _Refused as e:
        path = format_path(root, e.parts)
        raise RejectedError("%s: %s" % (path, e.reason), path=path) from None
    except UnicodeEncodeError:
        try:
            path = _surrogate_path(value, root)
        except Exception:  # noqa: BLE001 - a subclass that changed its mind
            path = root
        raise RejectedError("%s: string is not valid UTF-8 (lone surrogate)" % path, path=path) from None
    except Exception as e:  # noqa: BLE001 - e.g. a dict mutated by another thread meanwhile
        raise RejectedError("%s: cannot be encoded: %s" % (root, exception_line(e, 200)), path=root) from None


def encode_args(args: Sequence[Any], root: str = "args") -> str:
    """Canonical JSON array of positional arguments, paths rooted at ``args``."""
    parts = []
    for a in args:
        text = _scalar(a)
        if text is None:
            return encode(list(args), root)
        parts.append(text)
    return "[" + ",".join(parts) + "]"


def _surrogate_path(value, root):
    stack = [(value, [])]
    while stack:
        v, parts = stack.pop()
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return format_path(root, parts)
        elif isinstance(v, list):
            stack.extend((x, parts + [i]) for i, x in enumerate(v))
        elif isinstance(v, dict):
            for k, x in v.items():
                try:
                    k.encode("utf-8")
                except UnicodeEncodeError:
                    return format_path(root, parts)
                stack.append((x, parts + [k]))
    return root


def _key_repr(k):
    try:
        return clip(str.__str__(repr(k)), 200)
    except Exception:  # noqa: BLE001 - a hostile __repr__
        return "?"


def _refuse_constant(name):
    raise RejectedError("%s is not transferable" % name)


def _parse_float(s):
    f = float(s)
    if not math.isfinite(f):
        raise RejectedError("number %s overflows a float: not transferable" % s[:40])
    return f


def _parse_int(s):
    digits = len(s) - (s[0] == "-")
    if digits > MAX_INT_DIGITS:
        raise RejectedError("integer has %d digits, more than %d" % (digits, MAX_INT_DIGITS))
    return int(s)


def _object(pairs):
    d = dict(pairs)
    if len(d) != len(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen:
                raise RejectedError("duplicate key %s" % json.dumps(k, ensure_ascii=False))
            seen.add(k)
    if len(d) == 1 and BYTES_KEY in d:
        b = d[BYTES_KEY]
        if type(b) is str:
            return _b64decode(b)
    return d


def _b64decode(s):
    """Canonical standard base64 with padding only (what the encoder writes)."""
    try:
        raw = base64.b64decode(s.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raw = None
    if raw is None or base64.b64encode(raw).decode("ascii") != s:
        raise RejectedError("invalid base64 in __bytes__: %s" % json.dumps(s[:40]))
    return raw


_decoder = json.JSONDecoder(
    parse_constant=_refuse_constant,
    object_pairs_hook=_object,
    parse_float=_parse_float,
    parse_int=_parse_int,
)
# Text no longer than the digit cap cannot hold a too-long integer, so the
# common short frame skips the per-int hook (and, up to MAX_DEPTH characters,
# the depth scan) and the Python-level decode wrapper; the object hook
# (duplicate keys, bytes) and the float and constant hooks always run.
_fast_scan = json.JSONDecoder(
    parse_constant=_refuse_constant,
    object_pairs_hook=_object,
    parse_float=_parse_float,
).scan_once
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def _check_depth(text):
    """Refuse nesting deeper than MAX_DEPTH before the recursive parser sees it."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    # Strings aside, strip innermost pairs ("[]", "{}") a level per pass: C
    # string operations, so a big frame nested a few levels deep takes a few
    # passes, not a Python step per bracket. Brackets left after
    # QUICK_DEPTH passes (deeper, or unbalanced) are judged by the exact walk.
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    for _ in range(QUICK_DEPTH):
        shorter = brackets.replace("[]", "").replace("{}", "")
        if len(shorter) == len(brackets):
            break
        brackets = shorter
    if not brackets:
        return
    depth = 0
    for m in _BRACKET.finditer(_STRING.sub("", text)):
        if m.group() in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise RejectedError("nesting too deep (more than %d)" % MAX_DEPTH)
        else:
            depth -= 1


def _check_surrogates(v):
    stack = [v]
    while stack:
        x = stack.pop()
        if type(x) is str:
            try:
                x.encode("utf-8")
            except UnicodeEncodeError:
                raise RejectedError("lone surrogate escape in a string") from None
        elif type(x) is list:
            stack.extend(x)
        elif type(x) is dict:
            stack.extend(x)
            stack.extend(x.values())


def decode(data: Union[str, bytes]) -> Any:
    """Decode one transferable value from JSON text (str or UTF-8 bytes).

    Refuses (RejectedError) NaN/Infinity, numbers overflowing a float,
    integers over 4300 digits, nesting over 512, duplicate keys, invalid
    UTF-8, lone surrogate escapes, non-canonical base64 in a bytes wrapper,
    trailing data. ``{"__bytes__": str}`` (single key) becomes bytes."""
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as e:
            raise RejectedError("invalid UTF-8 at byte %d" % e.start) from None
    if len(data) <= MAX_INT_DIGITS and data and data[0] in "{[":
        if len(data) > MAX_DEPTH:
            _check_depth(data)
        try:
            v, end = _fast_scan(data, 0)
        except (StopIteration, ValueError):
            end = -1  # the full path below produces the error text
        if end == len(data):
            if "\\u" in data and _SURROGATE_ESCAPE.search(data):
                _check_surrogates(v)
            return v
    _check_depth(data)
    # A big text may hold ~100k fresh arrays per 100 KB: the collector would
    # walk every live object again and again while they are made (seconds for
    # 1 MiB when other big values are alive). They hold no cycles; pause it.
    pause = len(data) > GC_PAUSE_SIZE and gc.isenabled()
    if pause:
        gc.disable()
    try:
        v = _decoder.decode(data)
    except RejectedError:
        raise
    except json.JSONDecodeError as e:
        if e.msg == "Extra data":
            raise RejectedError("invalid JSON: trailing data at offset %d" % e.pos) from None
        raise RejectedError("invalid JSON: %s at offset %d" % (e.msg, e.pos)) from None
    except (ValueError, RecursionError) as e:
        raise RejectedError("invalid JSON: %s" % e) from None
    finally:
        if pause:
            gc.enable()
    if "\\u" in data and _SURROGATE_ESCAPE.search(data):
        _check_surrogates(v)
    return v


def decode_frame(line: Union[str, bytes]) -> Optional[Dict[str, Any]]:
    """Decode one protocol line into a dict (values decoded as by ``decode``).
    Returns None when the line is not a JSON object with a ``type`` key
    (plain text). Raises RejectedError when it is JSON but breaks the codec."""
    v = decode(line)
    if type(v) is dict and "type" in v:
        return v
    return None
