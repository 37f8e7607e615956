#!/usr/bin/env bash
# JSON-RPC: the Python client interop test and a short parser fuzz run.
#
# Makes .venv-jsonrpc with jsonrpcclient (PyPI) and runs the Go tests named
# Interop in ./service/... with TETHER_JSONRPC_PYTHON pointing at it: a
# Python client drives `tether serve --stdio` through one judge.run on
# examples/aplusb. The jrpc2 interop tests need no setup and run in `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/python-env.sh
need_python "ci-jsonrpc: the interop client" 9
venv_jsonrpc

export TETHER_JSONRPC_PYTHON="$PWD/$VENV/bin/python"
export TETHER_REQUIRE_INTEROP=1
go test -race -count=1 -run Interop ./jsonrpc/... ./service/...
