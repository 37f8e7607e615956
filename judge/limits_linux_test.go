//go:build linux

package judge

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/sandbox/sandboxtest"
)

// judgeWithLinux runs solution (a file of testdata/hostile) against the
// problem in dir with the linux runner and the repository's Python SDK.
func judgeWithLinux(t *testing.T, dir, solution string) *Result {
	t.Helper()
	runner := sandboxtest.Isolating(t)
	problem, err := LoadProblem(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	scaleTimes(problem)
	code, err := os.ReadFile(filepath.Join("testdata/hostile", solution))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), problem, &Submission{Path: solution, Code: code}, &Options{Runner: runner, PythonPath: pythonSDK(t)})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if left := leftovers(t); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	return res
}

// judgeFilesWithLinux is judgeFiles in a fresh folder the sandbox's user
// can read, with the linux runner and the repository's Python SDK.
func judgeFilesWithLinux(t *testing.T, files map[string]string) *Result {
	t.Helper()
	runner := sandboxtest.Isolating(t)
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return judgeFiles(t, dir, files, &Options{Runner: runner, PythonPath: pythonSDK(t)})
}

// pythonSDK is the repository's Python SDK, as an absolute path.
func pythonSDK(t *testing.T) string {
	t.Helper()
	sdk, err := filepath.Abs("../sdk/python")
	if err != nil {
		t.Fatal(err)
	}
	return sdk
}

// docs/sandbox.md: an evaluator over its memory limit is SystemError, whatever
// the solution did and whatever the evaluator would have said.
func TestEvaluatorOverMemoryIsSystemError(t *testing.T) {
	res := judgeWithLinux(t, "testdata/limits/evaluator_memory", "good.py")
	wantStatus(t, res, SystemError)
	if msg := details(t, res)["message"]; msg != "evaluator memory limit exceeded" {
		t.Fatalf("message %q", msg)
	}
}

// The solution's whole-run CPU cap stops a busy loop long before the call's
// own 20 s deadline, and the verdict is TimeLimitExceeded.
func TestSolutionOverCPUCapIsTimeLimitExceeded(t *testing.T) {
	res := judgeWithLinux(t, "testdata/limits/cpu_cap", "infinite_loop.py")
	wantStatus(t, res, TimeLimitExceeded)
	if msg := details(t, res)["message"]; msg != "solution CPU time limit exceeded" {
		t.Fatalf("message %q (the call timeout, not the CPU cap, ended it?)", msg)
	}
	if res.CPUMs < 1000 {
		t.Fatalf("cpu_ms %d below the 1000 ms cap that killed it", res.CPUMs)
	}
}

const readableEvaluator = `from tether_sdk.evaluator import SolutionRunner, result
with open("data.txt") as f:
    want = f.read().strip()
got = SolutionRunner().call("run", timeout_ms=3000)
if got == want:
    result.accept()
else:
    result.wrong_answer(got=str(got))
`

// The problem folder is bound into the evaluator's sandbox, which runs as
// an unprivileged uid: a folder (or file in it) that uid cannot read fails
// the run with a message saying what to fix. Its parents do not matter:
// here one is 0700, like /root.
func TestProblemFolderMustBeReadableBySandboxUser(t *testing.T) {
	runner := sandboxtest.Isolating(t)
	parent := t.TempDir()
	if err := os.Chmod(parent, 0o700); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "problem")
	files := map[string]string{
		"problem.json": `{"runtime_config":{"solution":{"memory_limit_mb":128}}}`,
		"evaluate.py":  readableEvaluator,
		"data.txt":     "blocked\n",
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	problem := loadProblemFiles(t, dir, files, 0o600)
	sdk := pythonSDK(t)
	run := func() *Result {
		res, err := Run(context.Background(), problem, &Submission{Path: "good.py", Code: []byte("def run():\n    return 'blocked'\n")},
			&Options{Runner: runner, PythonPath: sdk})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	err := CheckProblemAccess(problem, runner)
	var pe *ProblemError
	if !errors.Is(err, ErrProblemUnreadable) || !errors.As(err, &pe) || pe.Path != dir || !strings.Contains(err.Error(), "chmod -R a+rX "+dir) {
		t.Fatalf("0700 folder: %v", err)
	}
	res := run()
	wantStatus(t, res, SystemError)
	if msg, _ := details(t, res)["message"].(string); !strings.Contains(msg, ErrProblemUnreadable.Error()) {
		t.Fatalf("message %q", msg)
	}

	os.Chmod(dir, 0o755)
	os.Chmod(filepath.Join(dir, "problem.json"), 0o644)
	os.Chmod(filepath.Join(dir, "evaluate.py"), 0o644)
	if err := CheckProblemAccess(problem, runner); !errors.As(err, &pe) || pe.Path != filepath.Join(dir, "data.txt") {
		t.Fatalf("0600 data file: %v", err)
	}

	os.Chmod(filepath.Join(dir, "data.txt"), 0o644)
	if err := CheckProblemAccess(problem, runner); err != nil {
		t.Fatalf("readable folder: %v", err)
	}
	wantStatus(t, run(), Accepted)
}

// The whole-run CPU cap counts the CPU time of every call together: each
// call below spins for 0.4 s of its own CPU time, well inside the 1 s cap
// and its 20 s timeout, and a few calls go over the sum (issue 32 runs
// this on cgroup v2, where the sum is cpu.stat's usage_usec).
func TestSolutionCPUCapSumsTheCalls(t *testing.T) {
	res := judgeFilesWithLinux(t, map[string]string{
		"problem.json": `{"format_version":1,"title":"cpu sum","runtime_config":{"evaluator":{"time_limit_ms":60000},"solution":{"call_timeout_ms":20000,"cpu_time_limit_ms":1000}}}`,
		"evaluate.py": `from tether_sdk.evaluator import SolutionRunner, result
r = SolutionRunner()
for i in range(1000):
    r.call("spin", 0.4, timeout_ms=20000)
result.accept()
`,
		"sol.py": "import time\n\ndef spin(s):\n    end = time.process_time() + s\n    while time.process_time() < end:\n        pass\n",
	})
	wantStatus(t, res, TimeLimitExceeded)
	if msg := details(t, res)["message"]; msg != "solution CPU time limit exceeded" {
		t.Fatalf("message %q, want the CPU cap's", msg)
	}
	if res.CPUMs < 1000 {
		t.Fatalf("cpu_ms %d below the 1000 ms cap that stopped it", res.CPUMs)
	}
}
