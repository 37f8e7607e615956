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

VENV=.venv-lm
PYTHON=${PYTHON:-python3}

if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
	echo "ci-lm: rlms 0.1.3 needs Python >= 3.11; $PYTHON is $("$PYTHON" --version 2>&1)" >&2
	exit 1
fi
if ! "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null; then
	apt-get update -qq
	apt-get install -y -qq python3-venv
fi
if ! "$VENV/bin/python" -c 'import rlm.core.comms_utils, rlm.core.lm_handler, pytest' 2>/dev/null; then
	rm -rf "$VENV"
	"$PYTHON" -m venv "$VENV"
	"$VENV/bin/pip" install -q --disable-pip-version-check --no-deps rlms==0.1.3
	"$VENV/bin/pip" install -q --disable-pip-version-check python-dotenv==1.2.4 rich==15.0.0 pytest==9.0.2
fi

export TETHER_RLM_PYTHON="$PWD/$VENV/bin/python"
export TETHER_REQUIRE_INTEROP=1
go test -race -count=1 -run Interop ./lm/...

bin_dir=$(mktemp -d)
trap 'rm -rf "$bin_dir"' EXIT
go build -o "$bin_dir/tether" ./cmd/tether
export TETHER_BIN="$bin_dir/tether"
"$VENV/bin/python" -m pytest -q -p no:cacheprovider sdk/python/tests/test_lm.py
