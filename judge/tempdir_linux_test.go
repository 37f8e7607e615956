//go:build linux

package judge

import "testing"

// An evaluator in the linux sandbox runs in the read-only problem folder;
// the sandbox's TMPDIR and HOME still give it a writable scratch dir.
func TestEvaluatorTempfile(t *testing.T) {
	res := judgeFilesWithLinux(t, map[string]string{
		"problem.json": `{"format_version":1,"title":"tmp","image":"ignored","runtime_config":{"solution":{"call_timeout_ms":3000}}}`,
		"evaluate.py": `import os, tempfile
from noj_evaluator_sdk import SolutionRunner, result
d = tempfile.mkdtemp()
with open(os.path.join(d, "scratch"), "w") as f:
    f.write("5")
with tempfile.NamedTemporaryFile() as f:
    pass
with open(os.path.join(os.path.expanduser("~"), ".cache-probe"), "w") as f:  # HOME is writable too
    f.write("1")
r = SolutionRunner()
v = r.call("add", 2, 3)
if str(v) == open(os.path.join(d, "scratch")).read():
    result.accept(100.0)
else:
    result.wrong_answer(got=v)
`,
		"sol.py": "def add(a, b):\n    return a + b\n",
	})
	if res.Sandbox != "linux" {
		t.Errorf("sandbox = %q, want linux", res.Sandbox)
	}
	if res.Status != Accepted {
		t.Fatalf("status %s, want Accepted (output %q)", res.Status, res.Output)
	}
}
