"""The shared codec vectors (testdata/codec/vectors.json), every case."""

import base64
import json
import math
import os

import pytest

from conftest import REPO_ROOT
from tether_sdk import codec
from tether_sdk.errors import RejectedError

VECTORS = os.path.join(REPO_ROOT, "testdata", "codec", "vectors.json")


def _load():
    with open(VECTORS, encoding="utf-8") as f:
        return json.load(f)["cases"]


CASES = _load()


class _Object:
    def __init__(self, name):
        self.name = name


def _big_int(s):
    """int(s) without Python's 4300-digit str limit (vectors test that limit)."""
    sign, digits = (-1, s[1:]) if s.startswith("-") else (1, s)
    n = 0
    for i in range(0, len(digits), 1000):
        chunk = digits[i : i + 1000]
        n = n * 10 ** len(chunk) + int(chunk)
    return sign * n


def typed(t):
    """A Python value from a TYPED description."""
    (kind, v), = t.items()
    if kind == "null":
        return None
    if kind == "bool":
        return v
    if kind == "int":
        return _big_int(v)
    if kind == "float":
        return float(v)
    if kind == "str":
        return v
    if kind == "bytes":
        return base64.b64decode(v)
    if kind == "list":
        return [typed(x) for x in v]
    if kind == "map":
        return {typed(k): typed(x) for k, x in v}
    if kind == "tuple":
        return tuple(typed(x) for x in v)
    if kind == "set":
        return {typed(x) for x in v}
    if kind == "object":
        return _Object(v)
    raise AssertionError("unknown TYPED kind %r" % kind)


def same(a, b):
    """Equal in type and value: 1 != 1.0, -0.0 != 0.0, bytes != str."""
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if type(a) is list:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def wire_of(case):
    if "wire_hex" in case:
        return bytes.fromhex(case["wire_hex"])
    return case["wire"].encode("utf-8")


def test_vectors_file_has_every_shape():
    shapes = {tuple(sorted(k for k in c if k in ("value", "wire", "decodes_to", "decode_error", "encode_error"))) for c in CASES}
    assert ("value", "wire") in shapes
    assert ("decodes_to", "wire") in shapes
    assert ("decode_error", "wire") in shapes
    assert ("encode_error", "value") in shapes


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_vector(case):
    if "encode_error" in case:
        with pytest.raises(RejectedError) as info:
            codec.encode(typed(case["value"]))
        assert info.value.path == case["encode_error"], str(info.value)
        assert str(info.value).startswith(case["encode_error"] + ": ")
    elif "decode_error" in case:
        with pytest.raises(RejectedError) as info:
            codec.decode(wire_of(case))
        assert case["decode_error"] in str(info.value)
    elif "decodes_to" in case:
        got = codec.decode(wire_of(case))
        assert same(got, typed(case["decodes_to"])), got
    else:
        value = typed(case["value"])
        assert codec.encode(value).encode("utf-8") == wire_of(case)
        assert same(codec.decode(wire_of(case)), value)
