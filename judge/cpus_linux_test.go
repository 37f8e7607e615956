package judge

import (
	"encoding/json"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/sandbox"
)

// twoCPUs is two CPUs this process may run on, the last first, so that a
// side pinned to them cannot match by accident; the test is skipped with
// fewer.
func twoCPUs(t *testing.T) (int, int) {
	t.Helper()
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	var cpus []int
	for c := len(set)*64 - 1; c >= 0 && len(cpus) < 2; c-- {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) < 2 {
		t.Skip("needs two CPUs")
	}
	return cpus[0], cpus[1]
}

// Each side runs on the CPUs its option names (a worker slot's placement):
// the evaluator reports its own and asks the solution for its.
func TestSideCPUs(t *testing.T) {
	testenv.Python3(t)
	evCPU, solCPU := twoCPUs(t)
	files := map[string]string{
		"problem.json": `{"runtime_config":{"solution":{"call_timeout_ms":10000}}}`,
		"evaluate.py": `import json, os
from tether_sdk.evaluator import SolutionRunner
sol = SolutionRunner().call("cpus")
print("---RESULT---")
print(json.dumps({"status": "Accepted", "score": 100, "details": {"evaluator": sorted(os.sched_getaffinity(0)), "solution": sol}}))
`,
		"sol.py": "import os\n\ndef cpus():\n    return sorted(os.sched_getaffinity(0))\n",
	}
	res := judgeFiles(t, t.TempDir(), files, &Options{Runner: sandbox.NewPlain(),
		EvaluatorCPUs: []int{evCPU}, SolutionCPUs: []int{solCPU}})
	var got struct{ Evaluator, Solution []int }
	if err := json.Unmarshal(res.Details, &got); err != nil {
		t.Fatalf("%s: details %s: %v", res.Status, res.Details, err)
	}
	if len(got.Evaluator) != 1 || got.Evaluator[0] != evCPU || len(got.Solution) != 1 || got.Solution[0] != solCPU {
		t.Fatalf("evaluator ran on %v (want [%d]), solution on %v (want [%d])", got.Evaluator, evCPU, got.Solution, solCPU)
	}
}

func TestSideCPUsRefusesAnUnavailableCPU(t *testing.T) {
	r := judgeCase{eval: "add", sol: "basic", opts: Options{SolutionCPUs: []int{-1}}}.run(t)
	wantStatus(t, r, SystemError)
	if msg, _ := details(t, r)["message"].(string); !strings.Contains(msg, "CPU -1 is not one this process may run on") {
		t.Fatalf("details %s, want the CPU named", r.Details)
	}
}
