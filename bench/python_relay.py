#!/usr/bin/env python3
"""Calls/s of a trivial function between the Python SDK's two ends, three ways, in one run:

  relay   evaluator SDK <-> tether judge <-> solution host   (the product)
  direct  evaluator SDK <-> solution host, joined by two os.pipe()s (no judge)
  bare    two Python processes that only json.dumps/json.loads one line each way (the floor)

Usage: python3 bench/python_relay.py [--calls N] [--rounds R] [--tether BIN] [--sandbox KIND]
Without --tether it builds ./cmd/tether into a temp dir. The judge runs the
Python SDK embedded in its binary (sdk/python/embed.go), so a --tether built
before an SDK change measures the old SDK in the relay row: rebuild it.
Prints one line per way (best of R rounds) and the two ratios the issue sets
targets for.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SDK = os.path.join(ROOT, "sdk", "python")

EVALUATOR = r'''
import json, os, time
from tether_sdk.evaluator import SolutionRunner, result
n = int(os.environ["BENCH_CALLS"])
r = SolutionRunner()
for i in range(200):
    r.call("f", i)
t0 = time.perf_counter()
for i in range(n):
    r.call("f", i)
dt = time.perf_counter() - t0
out = os.environ.get("BENCH_OUT")
if out:
    with open(out, "w") as fh:
        json.dump({"calls": n, "seconds": dt}, fh)
result.accept(100.0, calls=n, seconds=dt)
'''

SOLUTION = "def f(x):\n    return x\n"

BARE = r'''
import json, os, sys, time
role = sys.argv[1]
rd, wr = sys.stdin.buffer, sys.stdout.buffer
if role == "server":
    for line in rd:
        f = json.loads(line)
        wr.write(json.dumps({"type": "result", "id": f["id"], "value": f["args"][0]}).encode() + b"\n")
        wr.flush()
else:
    n = int(os.environ["BENCH_CALLS"])
    def one(i):
        wr.write(json.dumps({"type": "call", "id": "%032x" % i, "fn": "f", "args": [i]}).encode() + b"\n")
        wr.flush()
        return json.loads(rd.readline())["value"]
    for i in range(200):
        one(i)
    t0 = time.perf_counter()
    for i in range(n):
        one(i)
    dt = time.perf_counter() - t0
    with open(os.environ["BENCH_OUT"], "w") as fh:
        json.dump({"calls": n, "seconds": dt}, fh)
'''


def env_with(**kw):
    env = dict(os.environ, PYTHONPATH=SDK, PYTHONDONTWRITEBYTECODE="1")
    env.update({k: str(v) for k, v in kw.items()})
    return env


def pair(cmd_a, cmd_b, env, cwd):
    """Run two processes with a's stdout -> b's stdin and b's stdout -> a's stdin."""
    a_to_b_r, a_to_b_w = os.pipe()
    b_to_a_r, b_to_a_w = os.pipe()
    a = subprocess.Popen(cmd_a, stdin=b_to_a_r, stdout=a_to_b_w, env=env, cwd=cwd)
    b = subprocess.Popen(cmd_b, stdin=a_to_b_r, stdout=b_to_a_w, env=env, cwd=cwd)
    for fd in (a_to_b_r, a_to_b_w, b_to_a_r, b_to_a_w):
        os.close(fd)
    a.wait(600)  # a ends; b sees EOF and exits
    b.wait(60)


def run_direct(work, n):
    out = os.path.join(work, "direct.json")
    pair([sys.executable, os.path.join(work, "evaluate.py")],
         [sys.executable, "-m", "noj_solution_sdk.host", "--entry", os.path.join(work, "main.py")],
         env_with(BENCH_CALLS=n, BENCH_OUT=out), work)
    with open(out) as fh:
        return json.load(fh)


def run_bare(work, n):
    out = os.path.join(work, "bare.json")
    script = os.path.join(work, "bare.py")
    pair([sys.executable, script, "client"], [sys.executable, script, "server"],
         env_with(BENCH_CALLS=n, BENCH_OUT=out), work)
    with open(out) as fh:
        return json.load(fh)


def run_relay(work, n, tether, sandbox, *flags):
    problem = os.path.join(work, "problem")
    cmd = [tether, "judge", problem, os.path.join(work, "main.py"), "--json", *flags]
    if sandbox:
        cmd += ["--sandbox", sandbox]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, BENCH_CALLS=str(n)), timeout=600)
    res = json.loads(proc.stdout)
    if res["status"] != "Accepted":
        raise SystemExit("relay run failed: %s" % json.dumps(res)[:2000])
    return res["details"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tether")
    ap.add_argument("--sandbox", default="", help="passed to tether judge --sandbox (default: the judge's)")
    opts = ap.parse_args()

    work = tempfile.mkdtemp(prefix="tether-pybench-")
    os.chmod(work, 0o755)
    try:
        tether = opts.tether
        if not tether:
            tether = os.path.join(work, "tether")
            subprocess.run(["go", "build", "-o", tether, "./cmd/tether"], cwd=ROOT, check=True)
        os.makedirs(os.path.join(work, "problem"))
        with open(os.path.join(work, "problem", "problem.json"), "w") as fh:
            # The evaluator reads BENCH_CALLS from the judge's environment pass-through if any;
            # the default below is used otherwise.
            json.dump({"format_version": 1, "title": "bench",
                       "runtime_config": {"evaluator": {"time_limit_ms": 600000},
                                          "solution": {"call_timeout_ms": 10000}}}, fh)
        evaluator = EVALUATOR.replace('int(os.environ["BENCH_CALLS"])',
                                      'int(os.environ.get("BENCH_CALLS", "%d"))' % opts.calls)
        for path, text in [("evaluate.py", evaluator), ("problem/evaluate.py", evaluator),
                           ("main.py", SOLUTION), ("bare.py", BARE)]:
            with open(os.path.join(work, path), "w") as fh:
                fh.write(text)
        best = {}
        for _ in range(opts.rounds):
            for name, fn in [("bare", lambda: run_bare(work, opts.calls)),
                             ("direct", lambda: run_direct(work, opts.calls)),
                             ("relay", lambda: run_relay(work, opts.calls, tether, opts.sandbox))]:
                r = fn()
                rate = r["calls"] / r["seconds"]
                best[name] = max(best.get(name, 0.0), rate)
        for name in ("bare", "direct", "relay"):
            if name in best:
                print("%-12s %9.0f calls/s  %7.1f us/call" % (name, best[name], 1e6 / best[name]))
        for name in ("relay",):
            if name in best:
                print("%-12s / direct %.0f%% (target >= 70%%)   / bare %.0f%% (target >= 50%%)"
                      % (name, 100 * best[name] / best["direct"], 100 * best[name] / best["bare"]))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
