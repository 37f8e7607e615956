package worker

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/sandbox/sandboxtest"
	"github.com/tether-dev/tether/worker/internal/workertest"
)

// The sandbox's user still reads the package through the private layout
// (WORK_DIR 0700, task folder 0711): a task is judged Accepted.
func TestSandboxReadsThePackageInAPrivateWorkDir(t *testing.T) {
	res, err := judgeAplusbTask(t, "def add(a, b):\n    return a + b\n")
	if err != nil || res.Status != "Accepted" {
		t.Fatalf("Judge = %+v, %v", res, err)
	}
}

// judgeAplusbTask judges a Python solution of examples/aplusb as a
// Neuro OJ-shaped task through a Judger with a private WORK_DIR.
func judgeAplusbTask(t *testing.T, code string) (*Result, error) {
	t.Helper()
	task, err := ParseTask(aplusbTask(t, code))
	if err != nil {
		t.Fatal(err)
	}
	return aplusbJudger(t).Judge(context.Background(), task, SlotCPUs{})
}

// aplusbTask is a task of examples/aplusb with a Python solution.
func aplusbTask(t *testing.T, code string) []byte {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{
		"submission_id": "p1", "problem_id": 1, "language": "python", "code": code,
		"download_url": "unused",
		"runtime_config": map[string]any{
			"evaluator": map[string]any{"image": "noj-evaluator-python", "command": "python3 /workspace/evaluate.py",
				"time_limit_ms": 20000, "memory_limit_mb": 256},
			"solution": map[string]any{"image": "noj-solution-python", "call_timeout_ms": 3000, "memory_limit_mb": 256},
		},
	})
	return raw
}

// aplusbJudger judges tasks of examples/aplusb in the isolating sandbox
// with a private WORK_DIR (it skips when that sandbox or python3 is
// missing).
func aplusbJudger(t *testing.T) *Judger {
	t.Helper()
	testenv.Python3(t)
	runner := sandboxtest.Isolating(t)
	return &Judger{Runner: runner, Packages: workertest.CopyFolder("../examples/aplusb"), WorkDir: preparedWorkDir(t)}
}
