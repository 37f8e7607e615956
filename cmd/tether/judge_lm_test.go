package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/judge/lmstart"
)

// examples/llm through the CLI (the sandbox this machine offers): the
// problem's own echo handler, its budget refusing the fourth call.
func TestJudgeLMExample(t *testing.T) {
	testenv.Python3(t)
	res, usage := judgeJSON(t, "../../examples/llm", "../../examples/llm/solution.py")
	if res.Status != judge.Accepted || res.Score != 10000 {
		t.Fatalf("got %v %d, details %s, output:\n%s", res.Status, res.Score, res.Details, res.Output)
	}
	if usage.ModelUsageSummaries["echo"].TotalCalls != 3 || usage.Calls() != 3 {
		t.Errorf("lm_usage = %s, want 3 echo calls", res.LMUsage)
	}
	out, err := runJudgeCLI(t, "../../examples/llm", "../../examples/llm/solution.py")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "lm usage: "+string(mustCompact(t, res.LMUsage))) {
		t.Errorf("summary lacks the lm usage line:\n%s", out)
	}
}

func mustCompact(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return b
}

// --lm-config replaces the problem's configuration: another backend name,
// a larger budget, so the example's fourth call is served (and the
// evaluator, which expects the refusal, says WrongAnswer).
func TestJudgeLMConfigFlagReplacesProblems(t *testing.T) {
	testenv.Python3(t)
	conf := filepath.Join(t.TempDir(), "lm.json")
	os.WriteFile(conf, []byte(`{"backends":{"judge-echo":{"type":"echo"}},"budget":{"calls":10}}`), 0o644)
	res, usage := judgeJSON(t, "../../examples/llm", "../../examples/llm/solution.py", "--lm-config", conf)
	if res.Status != judge.WrongAnswer {
		t.Errorf("status %v (%s), want WrongAnswer: the fourth call was served", res.Status, res.Details)
	}
	if usage.ModelUsageSummaries["judge-echo"].TotalCalls != 4 || usage.Calls() != 4 {
		t.Errorf("lm_usage = %s, want 4 calls of judge-echo", res.LMUsage)
	}
}

func TestJudgeLMConfigErrors(t *testing.T) {
	dir, sol := shellProblem(t)
	if _, err := runJudgeCLI(t, dir, sol, "--lm-config", filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing --lm-config file: %v", err)
	}
	conf := filepath.Join(t.TempDir(), "lm.json")
	os.WriteFile(conf, []byte(`{"backends":{"gpt":{"type":"openai","base_url":"http://127.0.0.1:1","api_key_env":"TETHER_TEST_SURELY_UNSET"}}}`), 0o644)
	if _, err := runJudgeCLI(t, dir, sol, "--lm-config", conf); err == nil || !strings.Contains(err.Error(), "TETHER_TEST_SURELY_UNSET") {
		t.Errorf("unset key variable: %v, want an error naming it", err)
	}
	// A problem may not name a key variable of the judge's environment.
	raw, _ := os.ReadFile(filepath.Join(dir, "problem.json"))
	withLM := strings.Replace(string(raw), `"runtime_config":{`,
		`"runtime_config":{"lm":{"backends":{"x":{"type":"openai","base_url":"http://127.0.0.1:1","api_key_env":"HOME"}}},`, 1)
	os.WriteFile(filepath.Join(dir, "problem.json"), []byte(withLM), 0o644)
	if _, err := runJudgeCLI(t, dir, sol); !errors.Is(err, lmstart.ErrKeyInProblem) || !errors.Is(err, judge.ErrBadProblemJSON) {
		t.Errorf("api_key_env in problem: %v", err)
	}
}
