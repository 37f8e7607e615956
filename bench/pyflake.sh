#!/usr/bin/env bash
# Flake check for the Python SDK suite (issue 16 item 4): the suite N times in
# a row (default 50) while one `nice -n 19` busy loop per CPU keeps every core
# busy, so a test that leans on timing rather than on events shows up.
#
# Usage: bench/pyflake.sh [-n N] [--venv DIR]
#   -n N        runs wanted in a row (default 50)
#   --venv DIR  a virtualenv with rlm and pytest (scripts/ci-lm.sh makes
#               .venv-lm): the suite runs with its python and includes
#               test_lm.py. Without it the machine's python3 runs the suite
#               without test_lm.py, as `make pytest-fast` does.
#
# Builds ./cmd/tether once into a temp dir for the e2e tests (TETHER_BIN).
# Stops at the first failing run and keeps that run's whole output in a file
# whose name it prints. A hang fails too: a test still running after 2 minutes
# has every thread's stack written to the output (pytest's faulthandler), and
# a run still going after 20 minutes is killed (a whole run takes under one).
# At the end it prints "N of N passed in a row" and the wall time. The busy
# loops are killed on exit, however the script ends.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=50
venv=
while (($# > 0)); do
	case $1 in
	-n) runs=${2:?-n needs a number of runs}; shift 2 ;;
	--venv) venv=${2:?--venv needs a virtualenv directory}; shift 2 ;;
	*) echo "pyflake: unknown argument '$1'; usage: bench/pyflake.sh [-n N] [--venv DIR]" >&2; exit 2 ;;
	esac
done
if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
	echo "pyflake: -n wants a positive whole number of runs, got '$runs'" >&2
	exit 2
fi

python=python3
suite=(sdk/python/tests --ignore=sdk/python/tests/test_lm.py)
if [[ -n $venv ]]; then
	python=$venv/bin/python
	if ! "$python" -c 'import rlm.core.comms_utils, rlm.core.lm_handler, pytest' 2>/dev/null; then
		echo "pyflake: $python cannot import rlm and pytest; make the venv with scripts/ci-lm.sh" >&2
		exit 2
	fi
	suite=(sdk/python/tests)
fi

work=$(mktemp -d)
busy=()
suite_pid=
cleanup() {
	local pid
	# A signal can end the script mid-run: the suite goes too, not only the loops.
	for pid in $suite_pid "${busy[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in $suite_pid "${busy[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/tether" ./cmd/tether
export TETHER_BIN=$work/tether
export PYTHONDONTWRITEBYTECODE=1

cpus=$(nproc)
for ((i = 0; i < cpus; i++)); do
	nice -n 19 bash -c 'while :; do :; done' &
	busy+=("$!")
done
echo "pyflake: $cpus busy loop(s) at nice 19; $runs run(s) of: $python -m pytest -q -p no:cacheprovider ${suite[*]}"

start=$(date +%s)
for ((run = 1; run <= runs; run++)); do
	t0=$(date +%s)
	# In the background so a signal's trap runs at once (bash runs traps
	# after a foreground child exits, but interrupts `wait`).
	timeout -k 10 1200 "$python" -m pytest -q -p no:cacheprovider -o faulthandler_timeout=120 \
		"${suite[@]}" >"$work/out" 2>&1 &
	suite_pid=$!
	status=0
	wait "$suite_pid" || status=$?
	suite_pid=
	if ((status == 0)); then
		echo "run $run/$runs passed in $(($(date +%s) - t0)) s: $(tail -n 1 "$work/out")"
		continue
	fi
	kept=$(mktemp "${TMPDIR:-/tmp}/pyflake-fail-XXXXXX.txt")
	cp "$work/out" "$kept"
	tail -n 30 "$kept"
	((status != 124)) || echo "pyflake: run $run hung: killed after 20 minutes" >&2
	echo "pyflake: run $run failed after $((run - 1)) of $runs passed in a row ($(($(date +%s) - start)) s); its output is in $kept" >&2
	exit 1
done
echo "$runs of $runs passed in a row in $(($(date +%s) - start)) s"
