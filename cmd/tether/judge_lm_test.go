package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
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

// echoChatServer is a loopback chat-completions server answering each
// request with its last message's content, as the echo backend does.
func echoChatServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		var req struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{
			"role": "assistant", "content": req.Messages[len(req.Messages)-1].Content}}}})
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// A problem's own openai backend does not reach the host's loopback unless
// the operator lists it in --allow-lm-hosts (issue 27, item 6).
func TestJudgeAllowLMHosts(t *testing.T) {
	testenv.Python3(t)
	srv, hits := echoChatServer(t)
	dir := t.TempDir()
	for _, name := range []string{"evaluate.py", "solution.py"} {
		body, err := os.ReadFile(filepath.Join("../../examples/llm", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	problem := `{"runtime_config":{"evaluator":{"command":"python3 evaluate.py"},"lm":{"backends":{"echo":` +
		`{"type":"openai","base_url":"` + srv.URL + `/v1","model":"m"}},"budget":{"calls":3}}}}`
	if err := os.WriteFile(filepath.Join(dir, "problem.json"), []byte(problem), 0o644); err != nil {
		t.Fatal(err)
	}
	sol := filepath.Join(dir, "solution.py")
	res, _ := judgeJSON(t, dir, sol)
	if res.Status == judge.Accepted || hits.Load() != 0 {
		t.Fatalf("without --allow-lm-hosts: %v (%s), %d requests reached the loopback server; want them refused", res.Status, res.Details, hits.Load())
	}
	res, _ = judgeJSON(t, dir, sol, "--allow-lm-hosts", "127.0.0.1")
	if res.Status != judge.Accepted || hits.Load() != 3 {
		t.Fatalf("with --allow-lm-hosts 127.0.0.1: %v (%s), %d requests; want Accepted after 3", res.Status, res.Details, hits.Load())
	}
	if _, err := runJudgeCLI(t, dir, sol, "--allow-lm-hosts", "localhost"); err == nil || !strings.Contains(err.Error(), "--allow-lm-hosts") {
		t.Errorf("--allow-lm-hosts localhost: %v, want a usage error naming the flag", err)
	}
}
