package judge

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/sandbox"
)

// TestInteropPythonSDK judges a Neuro OJ style problem with the default
// commands: python3 evaluate.py and the embedded Python solution host.
func TestInteropPythonSDK(t *testing.T) {
	testenv.Python3(t)
	dir := t.TempDir()
	files := map[string]string{
		"problem.json": `{"format_version":1,"title":"add","image":"ignored","runtime_config":{"solution":{"call_timeout_ms":3000}}}`,
		"evaluate.py": `from noj_evaluator_sdk import SolutionRunner, result
r = SolutionRunner()
print("checking")
v = r.call("add", 2, 3)
if v == 5:
    result.accept(100.0, got=v)
else:
    result.wrong_answer(got=v)
`,
		"sol.py": "def add(a, b):\n    print('adding', a, b)\n    return a + b\n",
	}
	r := judgeFiles(t, dir, files, &Options{Runner: sandbox.NewPlain()})
	wantStatus(t, r, Accepted)
	if r.Output != "checking\n" || details(t, r)["got"] != 5.0 {
		t.Fatalf("output %q details %s", r.Output, r.Details)
	}
	if len(r.Logs.Kept) != 1 || r.Logs.Kept[0].Data != "adding 2 3\n" {
		t.Fatalf("logs %+v", r.Logs)
	}
}

// loadProblemFiles writes files (name: contents) into dir with perm and loads
// dir as the problem.
func loadProblemFiles(t *testing.T, dir string, files map[string]string, perm os.FileMode) *Problem {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), perm); err != nil {
			t.Fatal(err)
		}
	}
	p, err := LoadProblem(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return scaleTimes(p)
}

// judgeFiles writes files into dir, and judges dir as the problem and its
// sol.py as the submission with opts.
func judgeFiles(t *testing.T, dir string, files map[string]string, opts *Options) *Result {
	t.Helper()
	p := loadProblemFiles(t, dir, files, 0o644)
	sub, err := LoadSubmission(filepath.Join(dir, "sol.py"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), p, sub, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkResultSchema(t, r)
	return r
}
