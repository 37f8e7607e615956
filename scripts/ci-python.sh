#!/usr/bin/env bash
# Python SDK: the pytest suite (fake judge on pipes, shared codec vectors),
# then end to end through the real `tether judge`: the e2e tests and every
# example through the CLI with its expected verdict.
#
# Makes .venv-python (pytest only; the SDK itself is standard library only)
# and builds the tether binary into a temp dir; exports TETHER_BIN for the
# e2e tests. Idempotent; needs only Debian packages and PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/python-env.sh
need_python "ci-python: the SDK" 9
venv_python

bin_dir=$(mktemp -d)
trap 'rm -rf "$bin_dir"' EXIT
go build -o "$bin_dir/tether" ./cmd/tether
export TETHER_BIN="$bin_dir/tether"
export PYTHONDONTWRITEBYTECODE=1

# test_lm.py belongs to the LM handler and runs in scripts/ci-lm.sh.
"$VENV/bin/python" -m pytest -q -p no:cacheprovider sdk/python/tests --ignore=sdk/python/tests/test_lm.py

# Every example and its expected verdict (each example's README says why).
failed=0
while read -r example submission status score; do
	out=$("$TETHER_BIN" judge "examples/$example" "examples/$example/$submission" --json || true)
	got=$(printf '%s' "$out" | "$VENV/bin/python" -c \
		'import json,sys; r=json.load(sys.stdin); print(r["status"], r["score"])' 2>/dev/null || echo "no-json")
	if [[ "$got" == "$status $score" ]]; then
		echo "ok   examples/$example/$submission: $got"
	else
		echo "FAIL examples/$example/$submission: got '$got', want '$status $score'"
		printf '%s\n' "$out" | head -c 2000
		failed=$((failed + 1))
	fi
done <<'LIST'
aplusb solution.py Accepted 10000
aplusb submissions/wrong_answer/wrong.py WrongAnswer 5000
aplusb submissions/run_time_error/crash.py RuntimeError 0
aplusb template.py RuntimeError 0
guess solution.py Accepted 10000
guess submissions/wrong_answer/wrong.py WrongAnswer 2000
capability solution.py Accepted 10000
bytes solution.py Accepted 10000
noj solution.py Accepted 9500
llm solution.py Accepted 10000
llm template.py RuntimeError 0
LIST
if ((failed > 0)); then
	echo "ci-python: $failed example verdict(s) wrong" >&2
	exit 1
fi

# Every example folder passes the problem setter's check: problem.json against
# schemas/problem.schema.json, and each file under submissions/<verdict>/
# judged with the verdict its folder names (the scores above are the part the
# check does not see). The solutions in every language beside problem.json
# are judged by go test ./examples, not here again (examples/README.md).
for dir in examples/*/; do
	[[ -f "$dir/problem.json" && -d "$dir/submissions" ]] || continue
	echo "== tether problem check $dir"
	"$TETHER_BIN" problem check "$dir"
done
