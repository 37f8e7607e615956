"""Drive `tether serve --stdio` through one judge.run with a PyPI JSON-RPC client.

Usage: judge_client.py TETHER_BIN PROBLEM_DIR SOLUTION_FILE

Requests are built and responses parsed by jsonrpcclient (PyPI); this script
only moves lines over the child's stdin and stdout. It prints one JSON object:
{"progress": [params of every $/progress], "result": R} or {"error": {...}}.
"""

import json
import subprocess
import sys

from jsonrpcclient import Error, Ok, parse, request


def main():
    tether, problem, solution = sys.argv[1:4]
    proc = subprocess.Popen(
        [tether, "serve", "--stdio", "--sandbox", "none"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    params = {
        "problem": problem,
        "solution": {"language": "python", "path": solution},
        "submission_id": "py-1",
        "_meta": {"progressToken": "py-progress"},
    }
    proc.stdin.write(json.dumps(request("judge.run", params=params)) + "\n")
    proc.stdin.flush()

    progress = []
    response = None
    for line in proc.stdout:
        message = json.loads(line)
        if message.get("method") == "$/progress":
            progress.append(message["params"])
            continue
        response = parse(message)
        break
    proc.stdin.close()
    proc.wait(timeout=60)

    out = {"progress": progress}
    if isinstance(response, Ok):
        out["result"] = response.result
    elif isinstance(response, Error):
        out["error"] = {"code": response.code, "message": response.message, "data": response.data}
    else:
        out["error"] = {"message": "no response before the server closed its stdout"}
    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
