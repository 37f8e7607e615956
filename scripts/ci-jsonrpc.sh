#!/usr/bin/env bash
# JSON-RPC: the Python client interop test and a short parser fuzz run.
#
# Makes .venv-jsonrpc with jsonrpcclient (PyPI) and runs the Go tests named
# Interop in ./service/... with TETHER_JSONRPC_PYTHON pointing at it: a
# Python client drives `tether serve --stdio` through one judge.run on
# examples/aplusb. The jrpc2 interop tests need no setup and run in `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.venv-jsonrpc
PYTHON=${PYTHON:-python3}

if ! "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null; then
	apt-get update -qq
	apt-get install -y -qq python3-venv
fi
if ! "$VENV/bin/python" -c 'import jsonrpcclient' 2>/dev/null; then
	rm -rf "$VENV"
	"$PYTHON" -m venv "$VENV"
	"$VENV/bin/pip" install -q --disable-pip-version-check jsonrpcclient==4.0.3
fi

export TETHER_JSONRPC_PYTHON="$PWD/$VENV/bin/python"
export TETHER_REQUIRE_INTEROP=1
go test -race -count=1 -run Interop ./jsonrpc/... ./service/...
