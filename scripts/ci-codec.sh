#!/usr/bin/env bash
# codec: the canonical wire form checked against Python's own json module
# (the encoder the Python SDK uses): float repr, string escaping, key order,
# on random values and on every canonical case of testdata/codec/vectors.json.
#
# Needs only a python3 (standard library); installs it from Debian when
# missing. Exports TETHER_CODEC_PYTHON and TETHER_REQUIRE_INTEROP=1 so the
# interop tests fail instead of skipping. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/python-env.sh
need_python "ci-codec: the interop tests" 9

export TETHER_CODEC_PYTHON
TETHER_CODEC_PYTHON=$(command -v "$PYTHON")
export TETHER_REQUIRE_INTEROP=1
go test -race -count=1 -run Interop ./codec/
