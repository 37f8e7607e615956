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
