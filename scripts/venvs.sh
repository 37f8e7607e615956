#!/usr/bin/env bash
# Makes the virtualenvs of the scripts/ci-*.sh steps ahead of them, all at
# once: `make test` starts this in the background, so that pip's downloads
# (mostly waiting on the network) overlap the Go steps, and waits for it
# before its scripts step. Best effort: a venv that fails here is made (and
# its failure reported) again by its own step, which checks each venv
# before using it.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/python-env.sh
# Without python3's venv module, make_venv would install it with apt-get:
# left to the steps, one at a time.
"$PYTHON" -c 'import ensurepip, venv' 2>/dev/null || exit 0
pids=()
for v in venv_jsonrpc venv_lm venv_python; do
	("$v" >/dev/null 2>&1) &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
exit 0
