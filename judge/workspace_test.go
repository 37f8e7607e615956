package judge

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/sandbox"
	"github.com/tether-dev/tether/sandbox/sandboxtest"
)

// A Neuro OJ task names its evaluator by the package's place in Neuro OJ's
// containers, /workspace, and the evaluator opens its data there: with
// Options.EvaluatorWorkspace it runs unchanged (under the none runner, as
// long as it opens its files relative to its working directory).
func TestEvaluatorWorkspace(t *testing.T) {
	testenv.Python3(t)
	runners := map[string]func(t *testing.T) sandbox.Runner{
		"none":  func(*testing.T) sandbox.Runner { return sandbox.NewPlain() },
		"linux": func(t *testing.T) sandbox.Runner { return sandboxtest.Isolating(t) },
	}
	for name, runner := range runners {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			os.Chmod(dir, 0o755)
			files := map[string]string{
				"expected.txt": "5\n",
				"evaluate.py": `import os
from noj_evaluator_sdk import SolutionRunner, result
want = int(open("expected.txt").read())
r = SolutionRunner()
got = r.call("add", 2, 3)
(result.accept(100.0, cwd=os.getcwd(), data=os.path.exists("/workspace/expected.txt")) if got == want else result.wrong_answer(got=got))
`,
			}
			for n, body := range files {
				if err := os.WriteFile(filepath.Join(dir, n), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			rc := []byte(`{"runtime_config":{"evaluator":{"command":"python3 /workspace/evaluate.py","time_limit_ms":20000},"solution":{"call_timeout_ms":3000}}}`)
			p, err := ParseProblem(dir, "task", rc, nil)
			if err != nil {
				t.Fatal(err)
			}
			sub := &Submission{Path: "main.py", Code: []byte("def add(a, b):\n    return a + b\n")}
			res, err := Run(context.Background(), p, sub, &Options{Runner: runner(t), EvaluatorWorkspace: "/workspace"})
			if err != nil {
				t.Fatal(err)
			}
			wantStatus(t, res, Accepted)
			// The none runner cannot move the folder: its command and working
			// directory are rewritten to the host path instead.
			wantCwd, wantData := "/workspace", true
			if name == "none" {
				wantCwd, wantData = dir, false
			}
			if d := details(t, res); d["cwd"] != wantCwd || d["data"] != wantData {
				t.Fatalf("details %s, want cwd %s and /workspace/expected.txt seen: %v", res.Details, wantCwd, wantData)
			}
		})
	}
}
