package service

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestInteropPythonClientJudgeRun: a Python client built on jsonrpcclient
// (PyPI) drives `tether serve --stdio` through one judge.run on
// examples/aplusb and must see progress notifications, then the result.
// It needs TETHER_JSONRPC_PYTHON (a Python with jsonrpcclient, set up by
// scripts/ci-jsonrpc.sh); without it the test skips, unless
// TETHER_REQUIRE_INTEROP=1. TETHER_BIN may name a built tether.
func TestInteropPythonClientJudgeRun(t *testing.T) {
	python := os.Getenv("TETHER_JSONRPC_PYTHON")
	if python == "" {
		if os.Getenv("TETHER_REQUIRE_INTEROP") == "1" {
			t.Fatal("TETHER_JSONRPC_PYTHON is not set (run scripts/ci-jsonrpc.sh)")
		}
		t.Skip("TETHER_JSONRPC_PYTHON not set: no Python with jsonrpcclient")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tether := os.Getenv("TETHER_BIN")
	if tether == "" {
		tether = filepath.Join(t.TempDir(), "tether")
		build := exec.Command("go", "build", "-o", tether, "./cmd/tether")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build ./cmd/tether: %v\n%s", err, out)
		}
	}
	cmd := exec.Command(python, filepath.Join("testdata", "judge_client.py"), tether,
		filepath.Join(root, "examples", "aplusb"), filepath.Join(root, "examples", "aplusb", "solution.py"))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("judge_client.py: %v\n%s", err, out)
	}
	var got struct {
		Progress []struct {
			Token string         `json:"token"`
			Value map[string]any `json:"value"`
		} `json:"progress"`
		Result *struct {
			SubmissionID string `json:"submission_id"`
			Status       string `json:"status"`
			Score        int64  `json:"score"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client output %s: %v", out, err)
	}
	if got.Result == nil {
		t.Fatalf("no result; error %s", got.Error)
	}
	if got.Result.SubmissionID != "py-1" || got.Result.Status != "Accepted" || got.Result.Score != 10000 {
		t.Errorf("result %+v, want py-1 Accepted 10000", *got.Result)
	}
	phases := map[string]int{}
	maxCalls := 0.0
	for _, p := range got.Progress {
		if p.Token != "py-progress" {
			t.Errorf("progress token %q, want the client's py-progress", p.Token)
		}
		phase, _ := p.Value["phase"].(string)
		phases[phase]++
		if c, ok := p.Value["calls"].(float64); ok && c > maxCalls {
			maxCalls = c
		}
	}
	if phases["started"] != 1 || phases["finished"] != 1 || phases["running"] == 0 || maxCalls < 1 {
		t.Errorf("progress phases %v (max calls %v), want started, running with calls, finished", phases, maxCalls)
	}
}
