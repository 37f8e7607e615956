package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/tether-dev/tether/judge"
)

// The broker: --broker, else REDIS_URL, else Neuro OJ's default Redis when
// a variable of Neuro OJ's worker is set, else the embedded NATS broker;
// each with the reason the first log line gives.
func TestChooseBroker(t *testing.T) {
	for _, c := range []struct {
		flag    string
		env     map[string]string
		want    string
		because string
	}{
		{"nats://q:4222", map[string]string{"REDIS_URL": "redis://r/1"}, "nats://q:4222", "--broker"},
		{"", map[string]string{"REDIS_URL": "redis://r/1", "JUDGE_QUEUE": "q"}, "redis://r/1", "REDIS_URL"},
		{"", map[string]string{"JUDGE_QUEUE": "q", "WORK_DIR": "/w"}, "redis://127.0.0.1/", "JUDGE_QUEUE, WORK_DIR (Neuro OJ's worker settings)"},
		{"", map[string]string{"JUDGE_CPU_LIMIT_MILLICORES": "500"}, "redis://127.0.0.1/", "JUDGE_CPU_LIMIT_MILLICORES"},
		{"", map[string]string{"TETHER_MAX_TASK_MB": "8", "JUDGE_QUEUE": ""}, "embedded", "the embedded NATS broker"},
		{"", nil, "embedded", "neither --broker nor REDIS_URL"},
	} {
		u, why := chooseBroker(c.flag, func(k string) (string, bool) { v, ok := c.env[k]; return v, ok })
		if u != c.want || !strings.Contains(why, c.because) {
			t.Errorf("flag %q env %v: %q (%s), want %q because %q", c.flag, c.env, u, why, c.want, c.because)
		}
	}
}

// A score above the full score is kept and flagged in the summary.
func TestSummaryFlagsAScoreAboveTheFullScore(t *testing.T) {
	for score, flagged := range map[int64]bool{100000: true, judge.MaxScore: false, 0: false} {
		var b bytes.Buffer
		printSummary(&b, &judge.Result{Status: judge.Accepted, Score: score, Details: []byte("{}")})
		if got := strings.Contains(b.String(), "above the full score of 100.00"); got != flagged {
			t.Errorf("score %d: flagged %v, want %v:\n%s", score, got, flagged, b.String())
		}
	}
}

// docs/worker.md names every variable the worker reads, and its table of
// differences from Neuro OJ's judge has a row for each deliberate one.
func TestWorkerDocsNameEveryVariableAndDifference(t *testing.T) {
	b, err := os.ReadFile("../../docs/worker.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for flag, name := range workerEnv {
		if !strings.Contains(doc, "| `"+name+"`") || !strings.Contains(doc, "`--"+flag+"`") {
			t.Errorf("docs/worker.md's table lacks %s (--%s)", name, flag)
		}
	}
	_, diffs, ok := strings.Cut(doc, "\n## Differences from Neuro OJ's judge\n")
	if !ok {
		t.Fatal(`docs/worker.md has no "Differences from Neuro OJ's judge" section`)
	}
	diffs, _, _ = strings.Cut(diffs, "\n## ")
	for _, row := range []string{"| isolation |", "| a fraction in a raw payload's `score` |", "| the evaluator over its own time limit |",
		"| network |", "| size caps |"} {
		if !strings.Contains(diffs, row) {
			t.Errorf("the differences table lacks the row %q", row)
		}
	}
}
