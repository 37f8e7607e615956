package worker

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/sandbox/sandboxtest"
)

// A task carries only runtime_config; the functions its package's
// problem.json declares still reach the evaluator (and the build): a
// solution returning a string from add is WrongAnswer with the SDK's words.
func TestJudgerTakesDeclaredFunctionsFromThePackage(t *testing.T) {
	testenv.Python3(t)
	runner := sandboxtest.Isolating(t)
	workDir := filepath.Join(t.TempDir(), "work")
	if err := PrepareWorkDir(workDir); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(map[string]any{
		"submission_id": "p1", "problem_id": 1, "language": "python", "code": "def add(a, b):\n    return str(a + b)\n",
		"download_url": "unused",
		"runtime_config": map[string]any{
			"evaluator": map[string]any{"image": "noj-evaluator-python", "command": "python3 /workspace/evaluate.py",
				"time_limit_ms": 20000, "memory_limit_mb": 256},
			"solution": map[string]any{"image": "noj-solution-python", "call_timeout_ms": 3000, "memory_limit_mb": 256},
		},
	})
	task, err := ParseTask(raw)
	if err != nil {
		t.Fatal(err)
	}
	j := &Judger{Runner: runner, Packages: copyFolder("../examples/aplusb"), WorkDir: workDir}
	res, err := j.Judge(context.Background(), task, SlotCPUs{})
	if err != nil || res.Status != "WrongAnswer" || !strings.Contains(string(res.Details), "add returned a string, expected an integer") {
		t.Fatalf("Judge = %+v (details %s), %v", res, res.Details, err)
	}
}
