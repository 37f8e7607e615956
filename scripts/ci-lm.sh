#!/usr/bin/env bash
# LM handler: interop with the real rlm (PyPI rlms==0.1.3) and the Python SDK's lm module.
#
# Makes .venv-lm with rlms installed --no-deps plus only what importing
# rlm.core.comms_utils / rlm.core.lm_handler needs (python-dotenv and rich:
# rlm/__init__ imports the client registry and the verbose logger), and
# pytest for sdk/python/tests/test_lm.py. rlms' full requirements (openai,
# anthropic, google-genai, portkey-ai, ...) are not needed for the protocol.
# Exports TETHER_RLM_PYTHON and TETHER_BIN for the tests it runs.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/python-env.sh
need_python "ci-lm: rlms 0.1.3" 11
venv_lm

export TETHER_RLM_PYTHON="$PWD/$VENV/bin/python"
export TETHER_REQUIRE_INTEROP=1
go test -race -count=1 -run Interop ./lm/...

bin_dir=$(mktemp -d)
trap 'rm -rf "$bin_dir"' EXIT
go build -o "$bin_dir/tether" ./cmd/tether
export TETHER_BIN="$bin_dir/tether"
"$VENV/bin/python" -m pytest -q -p no:cacheprovider sdk/python/tests/test_lm.py
