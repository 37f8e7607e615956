package judge

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/sandbox"
)

func TestPythonSDKWritten(t *testing.T) {
	dir, err := writePythonSDKDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for _, pkg := range []string{"tether_sdk", "noj_evaluator_sdk", "noj_solution_sdk"} {
		if _, err := os.Stat(filepath.Join(dir, pkg, "__init__.py")); err != nil {
			t.Errorf("%s not written: %v", pkg, err)
		}
	}
}

// importVerbose imports the SDK modules both sides use from dir, as the
// sides run (no bytecode written), and returns Python's -v trace.
func importVerbose(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command(sandbox.HostPython(), "-v", "-c", "import tether_sdk.evaluator, tether_sdk.solution.host, noj_evaluator_sdk")
	cmd.Env = []string{"PYTHONPATH=" + dir, "PYTHONDONTWRITEBYTECODE=1"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("import the SDK: %v\n%s", err, out)
	}
	return string(out)
}

// TestPythonSDKBytecodeUsed: the SDK dir comes with bytecode that the
// interpreter of the sides loads instead of compiling every module again.
func TestPythonSDKBytecodeUsed(t *testing.T) {
	if sandbox.HostPython() == "" {
		if os.Getenv("TETHER_REQUIRE_INTEROP") == "1" {
			t.Fatal("python3 not found and TETHER_REQUIRE_INTEROP=1")
		}
		t.Skip("python3 not found")
	}
	dir, err := writePythonSDKDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	trace := importVerbose(t, dir)
	fromCache := 0
	for _, line := range strings.Split(trace, "\n") {
		rest, ok := strings.CutPrefix(line, "# code object from ")
		if !ok || !strings.Contains(rest, dir) {
			continue
		}
		if !strings.Contains(rest, "/__pycache__/") {
			t.Errorf("compiled from source: %s", line)
		}
		fromCache++
	}
	if fromCache < 5 {
		t.Errorf("only %d SDK modules loaded from bytecode; trace:\n%s", fromCache, trace)
	}
}

// TestPythonSDKBytecodeChecksSource: the bytecode never stands for
// sources other than its own (checked-hash): a changed .py is compiled.
func TestPythonSDKBytecodeChecksSource(t *testing.T) {
	if sandbox.HostPython() == "" {
		t.Skip("python3 not found")
	}
	dir, err := writePythonSDKDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	init := filepath.Join(dir, "noj_evaluator_sdk", "__init__.py")
	src, err := os.ReadFile(init)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(init, append(src, "\nCHANGED = 1\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := importVerbose(t, dir)
	if !strings.Contains(trace, "# code object from "+init+"\n") {
		t.Errorf("changed %s was not compiled from source; trace:\n%s", init, trace)
	}
}
