"""Typed calls of declared functions (tether_sdk.evaluator.solution) against a fake judge.

The declaration is in the form the judge writes to TETHER_FUNCTIONS (package
sig, TestEnvIsTheTreeForm pins the Go side)."""

import json


DECL = json.dumps({
    "functions": [
        {"name": "add", "params": [{"name": "a", "type": "int"}, {"name": "b", "type": "int"}], "result": "int"},
        {"name": "scale", "params": [{"name": "xs", "type": {"list": "float"}}], "result": {"list": "float"}},
        {"name": "where", "params": [{"name": "p", "type": {"record": "Point"}}], "result": {"optional": "string"}},
        {"name": "reset", "params": [], "result": None},
    ],
    "types": {"Point": {"fields": [{"name": "x", "type": "int"}, {"name": "label", "type": {"optional": "string"}}]}},
})


def start(peers, source, decl=DECL):
    env = {"TETHER_RESULT_NONCE": "5eed"}
    if decl is not None:
        env["TETHER_FUNCTIONS"] = decl
    return peers.evaluator(source, env)


def result_of(p):
    assert p.line() == b"---RESULT--- 5eed"
    return json.loads(p.line())


def test_typed_call_sends_checked_arguments(peers):
    p = start(peers, """
        from tether_sdk.evaluator import solution
        print(solution.add(1, 2), solution.scale([1, 2.5]), solution.where({"x": 3}), solution.reset())
    """)
    for fn, args, value in [("add", [1, 2], 3), ("scale", [[1.0, 2.5]], [2.0, 5.0]),
                            ("where", [{"x": 3}], None), ("reset", [], None)]:
        f = p.frame()
        assert f["type"] == "call" and f["fn"] == fn and f["args"] == args, f
        p.send({"type": "result", "id": f["id"], "value": value})
    assert p.text() == "3 [2.0, 5.0] None None"
    assert p.wait() == 0


def test_wrong_argument_is_refused_before_sending(peers):
    p = start(peers, """
        from tether_sdk.evaluator import solution, ArgumentTypeError
        for call in [lambda: solution.add(1, "2"), lambda: solution.add(1, 2**63), lambda: solution.add(True, 1),
                     lambda: solution.add(1), lambda: solution.scale([1, "x"]),
                     lambda: solution.where({"x": 1, "y": 2}), lambda: solution.where({"label": "a"})]:
            try:
                call()
            except ArgumentTypeError as e:
                print(e)
        try:
            solution.sub(1, 2)
        except AttributeError as e:
            print(e)
    """)
    assert p.text() == "add: parameter b (int): want an integer, got a string"
    assert p.text() == "add: parameter b (int): want an integer, got an integer out of the 64-bit range"
    assert p.text() == "add: parameter a (int): want an integer, got a boolean"
    assert p.text() == "add takes 2 arguments (add(a: int, b: int) -> int), got 1"
    assert p.text() == "scale: parameter xs (list<float>): [1]: want a float, got a string"
    assert p.text() == "where: parameter p (Point): .y: want only the fields of Point, got a field Point does not have"
    assert p.text() == "where: parameter p (Point): .x: want an integer, got nothing (the field is missing)"
    assert p.text() == "sub is not a declared function (declared: add, scale, where, reset)"
    assert p.wait() == 0


def test_uncaught_wrong_result_type_is_wrong_answer(peers):
    p = start(peers, """
        from tether_sdk.evaluator import solution, result
        solution.add(1, 2)
        result.accept()
    """)
    f = p.frame()
    p.send({"type": "result", "id": f["id"], "value": "3"})
    assert result_of(p) == {"status": "WrongAnswer", "score": 0,
                            "details": {"message": "add returned a string, expected an integer"}}
    assert p.wait() != 0
    assert "ResultTypeError: add returned a string" in p.stderr


def test_caught_wrong_result_type_leaves_the_verdict_to_the_evaluator(peers):
    p = start(peers, """
        from tether_sdk.evaluator import solution, result, ResultTypeError
        try:
            solution.scale([1])
        except ResultTypeError as e:
            result.runtime_error(str(e))
    """)
    f = p.frame()
    p.send({"type": "result", "id": f["id"], "value": [1.5, None]})
    assert result_of(p)["details"] == {"message": "scale returned null at [1], expected a float"}
    assert p.wait() == 0


def test_without_declaration_calls_go_out_unchecked(peers):
    p = start(peers, """
        from tether_sdk.evaluator import solution
        print(solution.add(1, "2"))
    """, decl=None)
    f = p.frame()
    assert f["fn"] == "add" and f["args"] == [1, "2"], f
    p.send({"type": "result", "id": f["id"], "value": "12"})
    assert p.text() == "12"
    assert p.wait() == 0
