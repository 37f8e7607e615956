package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// hostPython is the host's Python as the judge's own PATH resolves it. Both
// runners exec this interpreter directly for a Spec's "python3" or "python",
// so they start the same program: PATH entries such as pyenv shims are
// shell scripts that run bash and pyenv (100 ms and more) before the
// interpreter on every start, and inside the linux sandbox they would need
// the whole pyenv tree.
type hostPython struct {
	// onPath maps "python3" and "python" to what the judge's PATH gives for
	// them (maybe a shim); only a Spec whose PATH finds the same file gets
	// the interpreter below, so a Spec naming another Python keeps it.
	onPath     map[string]string
	executable string   // sys.executable: the real interpreter
	prefixes   []string // sys.prefix and sys.base_prefix (a venv has both)
}

// sharedHostPython asks the host's python3 where it lives, once per judge
// process (it runs Python, through the shim when there is one). nil when
// there is no usable python3: Specs naming it then run what PATH gives
// (plain) or fail at Start (linux). Safe for concurrent use.
var sharedHostPython = sync.OnceValue(findPython)

func findPython() *hostPython {
	path, err := exec.LookPath("python3")
	if err != nil {
		return nil
	}
	out, err := exec.Command(path, "-I", "-c",
		"import sys; print(sys.executable); print(sys.prefix); print(sys.base_prefix)").Output()
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || !filepath.IsAbs(lines[0]) {
		return nil
	}
	if fi, err := os.Stat(lines[0]); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	py := &hostPython{executable: lines[0], onPath: map[string]string{"python3": absPath(path)}}
	if p, err := exec.LookPath("python"); err == nil {
		py.onPath["python"] = absPath(p)
	}
	for _, p := range lines[1:] {
		if filepath.IsAbs(p) && !containsString(py.prefixes, p) {
			py.prefixes = append(py.prefixes, p)
		}
	}
	return py
}

// interpreter returns the real interpreter when argv[0] name, found at
// path by the Spec's PATH, is the host Python the judge itself would run;
// otherwise path unchanged.
func (py *hostPython) interpreter(name, path string) string {
	if py == nil || (name != "python3" && name != "python") {
		return path
	}
	if host, ok := py.onPath[name]; ok && host == absPath(path) {
		return py.executable
	}
	return path
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// HostPython is the interpreter both runners exec for a Spec's "python3"
// (the real one behind a pyenv shim), or "" when the host has none. The
// judge compiles the Python SDK with it, so the bytecode's cache tag
// matches what runs in the sandboxes. Safe for concurrent use.
func HostPython() string {
	if py := sharedHostPython(); py != nil {
		return py.executable
	}
	return ""
}
