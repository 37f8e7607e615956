"""Checks a Python solution against the problem's declared functions
without running it: python3 tether_sigcheck.py main.py SPEC, where SPEC is
a JSON list of {"name", "params", "def"}. Exit 1 with one line per problem
(the expected def line named) when a declared function is not a top-level
def taking exactly its parameters; a name bound at top level otherwise (an
import, an assignment), or missing from a source that calls register(), is
taken on trust."""

import ast
import json
import sys


def accepts(fn, n):
    a = fn.args
    positional = len(a.posonlyargs) + len(a.args)
    required = positional - len(a.defaults)
    if any(d is None for d in a.kw_defaults):
        return False  # a keyword-only parameter without a default
    if required > n:
        return False
    return a.vararg is not None or positional >= n


def main():
    path, spec = sys.argv[1], json.loads(sys.argv[2])
    with open(path, "rb") as f:
        text = f.read()
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as e:
        print("%s:%s:%s: SyntaxError: %s" % (path, e.lineno, e.offset, e.msg))
        if e.text:
            print("    " + e.text.rstrip("\n"))
        return 1
    except ValueError as e:  # a NUL byte, on some Python versions
        print("%s: %s" % (path, e))
        return 1
    defs, other = {}, set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[node.name] = node
            other.discard(node.name)
            continue
        for sub in ast.walk(node) if not isinstance(node, ast.ClassDef) else [node]:
            if isinstance(sub, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                other.add(sub.name)
            elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                other.add(sub.id)
            elif isinstance(sub, ast.alias):
                other.add((sub.asname or sub.name).split(".")[0])
    # A solution that registers functions by name (tether_sdk.solution.register)
    # may serve one under another name than its def's: trust it.
    registers = any(isinstance(c, ast.Call) and getattr(c.func, "id", getattr(c.func, "attr", None)) == "register"
                    for c in ast.walk(tree))
    problems = []
    for want in spec:
        name, n = want["name"], len(want["params"])
        if name in other:
            continue
        fn = defs.get(name)
        if fn is None and registers:
            continue
        if fn is None:
            problems.append("%s: %s is missing; the problem declares:\n    %s" % (path, name, want["def"]))
        elif isinstance(fn, ast.AsyncFunctionDef):
            problems.append("%s:%d: %s is async; the problem declares a plain function:\n    %s" % (path, fn.lineno, name, want["def"]))
        elif not accepts(fn, n):
            problems.append("%s:%d: %s does not take %d argument%s; the problem declares:\n    %s"
                            % (path, fn.lineno, name, n, "" if n == 1 else "s", want["def"]))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
