"""Every type of the type language, echoed: each declared echo_* function
must return its argument exactly (same types: an int stays an int, -0.0
keeps its sign, bytes stay bytes, an absent optional field stays absent).

Accepted with "N values echoed" when all are, followed by "; refused: "
and each call the solution's host refused (RejectedError: a value its
language cannot hold, such as a NUL inside a C string), and by "; null
for absent: " and each record echoed with null for an optional field it
left out (a language whose records are typed, Go's structs, cannot tell
the two apart; the declaration allows both); else WrongAnswer listing the
first differences. NaN and the infinities are refused by the
codec before anything is sent."""

import math

from tether_sdk.evaluator import RejectedError, TetherError, result, solution

I64_MIN, I64_MAX = -(2**63), 2**63 - 1
ALL_BYTES = bytes(range(256))
P0 = {"x": 0, "y": 0}
P1 = {"x": I64_MIN, "y": I64_MAX}
SHAPE = {"name": "tri\u00e4ngle \U0001F53A", "at": P1, "points": [P0, P1, {"x": -1, "y": 1}], "weight": -0.0, "tag": "t"}
SHAPE_NO_TAG = {"name": "", "at": P0, "points": [], "weight": 1e300}
SHAPE_NULL_TAG = {"name": "n", "at": P0, "points": [P1], "weight": 0.5, "tag": None}

# (function, arguments, expected echo); the echo is the single argument
# when expected is left out.
CASES = [("echo_int", v) for v in [0, 1, -1, I64_MIN, I64_MAX, I64_MIN + 1, I64_MAX - 1, 2**53 + 1, -(2**53 + 1), 2**31, -(2**31) - 1]]
CASES += [("echo_bigint", v) for v in [0, -7, I64_MIN, I64_MAX, I64_MAX + 1, I64_MIN - 1, 2**64, 2**200, -(2**200), 10**60 + 1]]
CASES += [("echo_float", v) for v in [0.0, -0.0, 1.5, -2.25, 0.1, 1e300, -1.7976931348623157e308, 1.7976931348623157e308,
                                     5e-324, -5e-324, 2.2250738585072014e-308, 1e-300, 1e16, 123456789.125, 2.0**53, 2.0**63,
                                     -(2.0**64), 1e22, 3.0, 1e-5, 0.0001]]
CASES += [("echo_float", [3], 3.0), ("echo_float", [I64_MIN], float(I64_MIN))]  # an int argument goes out as a float
CASES += [("echo_bool", v) for v in [True, False]]
CASES += [("echo_string", v) for v in ["", "a", "h\u00e9llo w\u00f6rld", "\u65e5\u672c\u8a9e", "\U0001F600 \U0001D11E", "a\x00b", "\x00",
                                      "\n\t\r\"\\/\x01\x1f\x7f", "\u2028\u2029", "\ufeff\ufffd", "x" * 100000]]
CASES += [("echo_bytes", v) for v in [b"", ALL_BYTES, bytes(reversed(ALL_BYTES)), b"\x00", b"\xff\xfe", b"\x00" * 1000]]
CASES += [("echo_list", v) for v in [[], [0], [I64_MIN, -1, 0, 1, I64_MAX], list(range(1000))]]
CASES += [("echo_list_bool", v) for v in [[], [True], [False, True, False]]]
CASES += [("echo_list_float", v) for v in [[], [-0.0, 0.0, 1.5, 5e-324, 1e300]]]
CASES += [("echo_list_float", [[1, 2]], [1.0, 2.0])]
CASES += [("echo_list_bytes", v) for v in [[], [b""], [ALL_BYTES, b"", b"\x00"]]]
CASES += [("echo_nested_list", v) for v in [[], [[]], [[], []], [["a"], [], ["", "b\u00e9", "c"]]]]
CASES += [("echo_map", v) for v in [{}, {"": 0}, {"a": 1, "b": I64_MIN, "\u00e9": I64_MAX, "a\x00b": -1, "__bytes__": 7}]]
CASES += [("echo_nested_map", v) for v in [{}, {"a": {}}, {"a": {"b": []}, "c": {"d": [-0.0, 1.25], "e": [1e-300]}}]]
CASES += [("echo_optional_int", v) for v in [None, 0, I64_MIN, I64_MAX]]
CASES += [("echo_optional_string", v) for v in [None, "", "x\u00e9"]]
CASES += [("echo_optional_list", v) for v in [None, [], [1, 2]]]
CASES += [("echo_list_optional", v) for v in [[], [None], [None, 1, None, I64_MIN]]]
CASES += [("echo_point", v) for v in [P0, P1]]
CASES += [("echo_shape", v) for v in [SHAPE, SHAPE_NO_TAG, SHAPE_NULL_TAG]]
CASES += [("echo_points", v) for v in [[], [P0], [P1, P0, P1]]]
CASES += [("echo_optional_point", v) for v in [None, P1]]
CASES += [("echo_point_map", v) for v in [{}, {"o": P0, "far": P1}]]
CASES += [("echo_any", v) for v in [None, True, 0, I64_MIN, 2**200, -0.0, 1.5, "", "a\x00b", b"", ALL_BYTES, [], {},
                                   [None, False, -(2**200), 1e-300, "\u00e9", b"\x00\xff", [[], {}], {"k": [{"n": None}]}],
                                   {"list": [1, [2, [3, [4]]]], "map": {"": {"": {}}}, "bytes": {"__bytes__": 1, "x": b"y"}}]]
CASES += [("echo_mixed", [I64_MIN, "\u00e9\U0001F600", -0.0, True, ALL_BYTES, -(2**200)], [I64_MIN, "\u00e9\U0001F600", -0.0, True, ALL_BYTES, -(2**200)]),
          ("echo_mixed", [0, "", 0.5, False, b"", 0], [0, "", 0.5, False, b"", 0])]


def same(a, b):
    """Equal with the same types all the way down (True is not 1, 1 is
    not 1.0) and -0.0 apart from 0.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def short(v):
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


wrong, refused, nulled = [], [], []
for case in CASES:
    fn, args, want = (case[0], [case[1]], case[1]) if len(case) == 2 else case
    call = "%s(%s)" % (fn, ", ".join(short(a) for a in args))
    try:
        got = getattr(solution, fn)(*args)
    except RejectedError as e:
        refused.append("%s (%s)" % (call, e))
        continue
    except TetherError as e:
        wrong.append("%s failed: %s" % (call, e))
        continue
    if fn == "echo_shape" and "tag" not in want and same(got, dict(want, tag=None)):
        nulled.append(call)
    elif not same(got, want):
        wrong.append("%s returned %s" % (call, short(got)))

for v in [float("nan"), float("inf"), float("-inf")]:
    try:
        solution.echo_float(v)
        wrong.append("echo_float(%r) was sent" % v)
    except RejectedError as e:
        if "is not transferable" not in str(e):
            wrong.append("echo_float(%r) refused with %s" % (v, e))

if wrong:
    result.wrong_answer("%d of %d values not echoed: %s" % (len(wrong), len(CASES), "; ".join(wrong[:8])))
else:
    result.accept(100.0, "%d values echoed" % (len(CASES) - len(refused))
                  + "".join("; refused: " + r for r in refused) + "".join("; null for absent: " + n for n in nulled))
