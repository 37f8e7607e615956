"""A broken problem: after one good call the evaluator allocates past its
48 MiB limit. It would accept if it survived."""

from tether_sdk.evaluator import SolutionRunner, result

runner = SolutionRunner()
runner.call("run", timeout_ms=3000)
hog = []
for _ in range(64):
    hog.append(b"x" * (8 << 20))
result.accept()
