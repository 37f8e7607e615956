package judge

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tether-dev/tether/sandbox"
)

// judgeCase runs one judged submission with scripted sides.
type judgeCase struct {
	eval, sol string         // role names
	evalRC    map[string]any // extra runtime_config.evaluator fields
	solRC     map[string]any // extra runtime_config.solution fields
	opts      Options
}

func selfPath(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func (c judgeCase) problem(t *testing.T) *Problem {
	t.Helper()
	exe := selfPath(t)
	dir := t.TempDir()
	evRC := map[string]any{"command": []string{exe, "tether-side", "evaluator"}, "time_limit_ms": 20000}
	for k, v := range c.evalRC {
		evRC[k] = v
	}
	solRC := map[string]any{"command": []string{exe, "tether-side", "solution"}}
	for k, v := range c.solRC {
		solRC[k] = v
	}
	pj, _ := json.Marshal(map[string]any{"format_version": 1, "title": "t",
		"runtime_config": map[string]any{"evaluator": evRC, "solution": solRC}})
	if err := os.WriteFile(filepath.Join(dir, "problem.json"), pj, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := LoadProblem(dir, []string{exe})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (c judgeCase) run(t *testing.T) *Result {
	t.Helper()
	p := c.problem(t)
	opts := c.opts
	opts.Env = append(opts.Env, "TETHER_TEST_EVAL="+c.eval, "TETHER_TEST_SOL="+c.sol)
	if opts.StopGrace == 0 {
		opts.StopGrace = 200 * time.Millisecond
	}
	opts.PythonPath = t.TempDir() // no Python SDK needed: both sides are Go
	if opts.Runner == nil {
		opts.Runner = sandbox.NewPlain()
	}
	res, err := Run(context.Background(), p, &Submission{Path: "main.py", Code: []byte("# go solution\n")}, &opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !opts.NeuroOJ { // Neuro OJ's shape (details null) is the worker's, not schemas/result.schema.json
		checkResultSchema(t, res)
	}
	return res
}

func details(t *testing.T, r *Result) map[string]any {
	t.Helper()
	var d map[string]any
	if err := json.Unmarshal(r.Details, &d); err != nil {
		t.Fatalf("details %s: %v", r.Details, err)
	}
	return d
}

func wantStatus(t *testing.T, r *Result, s Status) {
	t.Helper()
	if r.Status != s {
		b, _ := json.MarshalIndent(r, "", " ")
		if len(b) > 4000 {
			b = b[:4000]
		}
		t.Fatalf("status %v, want %v; result:\n%s", r.Status, s, b)
	}
}
