package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// resetServeFlags puts serve's flags back to their defaults, since cobra
// keeps them between Execute calls.
func resetServeFlags(t *testing.T) {
	t.Helper()
	serve, _, err := rootCmd.Find([]string{"serve"})
	if err != nil {
		t.Fatal(err)
	}
	resetFlags(serve)
}

// runServeStdio runs `tether serve --stdio` in-process on in and returns
// what it wrote to stdout.
func runServeStdio(t *testing.T, in string, flags ...string) string {
	t.Helper()
	var out bytes.Buffer
	rootCmd.SetIn(strings.NewReader(in))
	rootCmd.SetOut(&out)
	rootCmd.SetErr(&bytes.Buffer{})
	rootCmd.SetArgs(append([]string{"serve", "--stdio"}, flags...))
	defer func() {
		rootCmd.SetIn(nil)
		rootCmd.SetOut(nil)
		rootCmd.SetErr(nil)
		rootCmd.SetArgs(nil)
	}()
	if err := rootCmd.Execute(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestServeStdio(t *testing.T) {
	defer resetServeFlags(t)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","method":"tether.version","id":1}`,
		`{"jsonrpc":"2.0","method":"judge.cancel","params":{"submission_id":"none"},"id":2}`,
		`{"jsonrpc":"2.0","method":"lm.complete","params":{"prompt":"hi"},"id":3}`,
		`not json`,
	}, "\n") + "\n"
	out := runServeStdio(t, in, "--sandbox", "none")
	byID := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var msg map[string]any
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		id, _ := json.Marshal(msg["id"])
		byID[string(id)] = msg
	}
	if r, _ := byID["1"]["result"].(map[string]any); r["protocols"] == nil || r["version"] == "" {
		t.Errorf("tether.version: %v", byID["1"])
	}
	if r, _ := byID["2"]["result"].(map[string]any); r["cancelled"] != false {
		t.Errorf("judge.cancel: %v", byID["2"])
	}
	if e, _ := byID["3"]["error"].(map[string]any); e["code"] != float64(-32002) {
		t.Errorf("lm.complete without --lm: %v", byID["3"])
	}
	if e, _ := byID["null"]["error"].(map[string]any); e["code"] != float64(-32700) {
		t.Errorf("not json: %v", byID["null"])
	}
}

func TestServeNeedsExactlyOneMode(t *testing.T) {
	rootCmd.SetArgs([]string{"serve", "--stdio", "--http", "127.0.0.1:0"})
	defer rootCmd.SetArgs(nil)
	defer resetServeFlags(t)
	if err := rootCmd.Execute(); err == nil || !strings.Contains(err.Error(), "exactly one") {
		t.Errorf("two modes: %v", err)
	}
}

// judge.run over JSON-RPC gives a problem's LM handler to its run, as
// `tether judge` does: examples/llm is Accepted with its usage reported.
func TestServeJudgeRunWithProblemLM(t *testing.T) {
	requirePython3(t)
	defer resetServeFlags(t)
	in := `{"jsonrpc":"2.0","id":1,"method":"judge.run","params":{"problem":"../../examples/llm",` +
		`"solution":{"language":"python","path":"../../examples/llm/solution.py"}}}` + "\n"
	lines := strings.Split(strings.TrimSpace(runServeStdio(t, in)), "\n")
	var resp struct {
		Result struct {
			Status  string `json:"status"`
			LMUsage struct {
				Models map[string]struct {
					Calls int `json:"total_calls"`
				} `json:"model_usage_summaries"`
			} `json:"lm_usage"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &resp); err != nil {
		t.Fatalf("last line %q: %v", lines[len(lines)-1], err)
	}
	if resp.Result.Status != "Accepted" || resp.Result.LMUsage.Models["echo"].Calls != 3 {
		t.Fatalf("judge.run on examples/llm: %s", lines[len(lines)-1])
	}
}
