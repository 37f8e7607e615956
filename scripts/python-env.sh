# Sourced by the scripts/ci-*.sh that need Python: one way to get an
# interpreter from Debian and a virtualenv from PyPI. Idempotent.

PYTHON=${PYTHON:-python3}

# need_python WHO MINOR: $PYTHON, installed from Debian when missing, and
# at least Python 3.MINOR (else WHO says so and the script stops).
need_python() {
	local who=$1 minor=$2
	if ! command -v "$PYTHON" >/dev/null 2>&1; then
		apt-get update -qq
		apt-get install -y -qq python3
	fi
	if ! "$PYTHON" -c "import sys; sys.exit(sys.version_info < (3, $minor))"; then
		echo "$who needs Python >= 3.$minor; $PYTHON is $("$PYTHON" --version 2>&1)" >&2
		exit 1
	fi
}

# The virtualenvs of the scripts/ci-*.sh steps, one function each (it sets
# VENV to its dir): the step calls its own, and scripts/venvs.sh makes them
# all ahead, while `make test` runs the Go steps (pip mostly waits on the
# network).
venv_jsonrpc() {
	VENV=.venv-jsonrpc
	make_venv "$VENV" 'import jsonrpcclient' 'jsonrpcclient==4.0.3'
}
venv_lm() {
	VENV=.venv-lm
	make_venv "$VENV" 'import rlm.core.comms_utils, rlm.core.lm_handler, pytest' \
		'--no-deps rlms==0.1.3' 'python-dotenv==1.2.4 rich==15.0.0 pytest==9.0.2'
}
venv_python() {
	VENV=.venv-python
	make_venv "$VENV" 'import pytest' 'pytest==9.0.2'
}

# make_venv DIR IMPORTS PIP_ARGS...: unless DIR's python runs the
# statement IMPORTS, makes DIR afresh with one pip install per PIP_ARGS
# (each a list of pip words: packages pinned, options).
make_venv() {
	local dir=$1 imports=$2 args
	shift 2
	if ! "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null; then
		apt-get update -qq
		apt-get install -y -qq python3-venv
	fi
	if "$dir/bin/python" -c "$imports" 2>/dev/null; then
		return
	fi
	rm -rf "$dir"
	"$PYTHON" -m venv "$dir"
	for args in "$@"; do
		# shellcheck disable=SC2086 # word splitting wanted: one argument, several pip words
		"$dir/bin/pip" install -q --disable-pip-version-check $args
	done
}
