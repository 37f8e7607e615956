package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/trace"
)

// runTraceCLI runs `tether trace args...` and returns stdout.
func runTraceCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return runCLI(t, append([]string{"trace"}, args...)...)
}

func TestTraceStatsOfAJudgedRun(t *testing.T) {
	dir, sol := shellProblem(t)
	file := filepath.Join(t.TempDir(), "run.trace")
	if _, err := runJudgeCLI(t, dir, sol, "--sandbox", "none", "--trace", file); err != nil {
		t.Fatal(err)
	}
	out, err := runTraceCLI(t, "stats", file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"run:", "WrongAnswer", "function", "p99", "slowest calls:", "time:", "judge CPU"} {
		if !strings.Contains(out, want) {
			t.Errorf("stats output lacks %q:\n%s", want, out)
		}
	}
	out, err = runTraceCLI(t, "stats", file, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var st trace.Stats
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Verdict != "WrongAnswer" || len(st.Functions) != 1 ||
		st.Functions[0].Count != 1 {
		t.Fatalf("%v: %s", err, out)
	}
}

// A trace with a compile step: stats names its language, time, memory and
// outcome, apart from the run's clocks.
func TestTraceStatsReportsTheCompileStep(t *testing.T) {
	file := filepath.Join(t.TempDir(), "run.trace")
	os.WriteFile(file, []byte(`{"trace":3,"tether":"t","problem":"P","started":"2026-12-03T08:00:00Z","sides":{}}
{"t":900,"ev":"compile","us":850,"compile":{"language":"cpp","time_ms":812,"memory_kb":46080,"cached":false,"outcome":"ok"}}
{"t":2000,"ev":"verdict","result":{"status":"Accepted","score":10000}}
`), 0o644)
	out, err := runTraceCLI(t, "stats", file)
	if err != nil {
		t.Fatal(err)
	}
	if want := "compile:  cpp, 850µs (compiler 812 ms, 46080 KiB, before the run's clock): ok\n"; !strings.Contains(out, want) {
		t.Errorf("stats output lacks %q:\n%s", want, out)
	}
}

func TestTraceStatsRefusesWhatIsNotATrace(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.json")
	os.WriteFile(file, []byte(`{"title":"not a trace"}`+"\n"), 0o644)
	if _, err := runTraceCLI(t, "stats", file); err == nil || !strings.Contains(err.Error(), "not a trace file") {
		t.Fatalf("err = %v", err)
	}
	if _, err := runTraceCLI(t, "stats"); err == nil || !strings.Contains(err.Error(), "one FILE") {
		t.Fatalf("no file: %v", err)
	}
}

func TestJudgeTraceMax(t *testing.T) {
	dir, sol := shellProblem(t)
	file := filepath.Join(t.TempDir(), "run.trace")
	if _, err := runJudgeCLI(t, dir, sol, "--sandbox", "none", "--trace", file, "--trace-max", "lots"); err == nil ||
		!strings.Contains(err.Error(), "--trace-max") {
		t.Fatalf("--trace-max lots: %v", err)
	}
	if _, err := runJudgeCLI(t, dir, sol, "--sandbox", "none", "--trace", file, "--trace-max", "300B"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	_, evs, err := trace.ReadAll(bytes.NewReader(data))
	if err != nil || !evs[len(evs)-1].Capped || evs[len(evs)-1].Max != 300 || evs[len(evs)-2].Ev != trace.KindVerdict {
		t.Fatalf("%v:\n%s", err, data)
	}
	for _, c := range []struct {
		in   string
		want int64
	}{{"64MiB", 64 << 20}, {"500KiB", 500 << 10}, {"1048576", 1 << 20}, {"2 G", 2 << 30}} {
		if got, err := parseSize(c.in); err != nil || got != c.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}
