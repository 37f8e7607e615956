package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/sandbox"
)

// problemCLI runs `tether problem ARGS...` in this process.
func problemCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := runTether(context.Background(), thisMachine, nil, &out, &errOut, append([]string{"problem"}, args...)...)
	return out.String(), errOut.String(), err
}

// Each template init writes is a working problem: check judges every
// submission it ships with the verdict of its folder.
func TestProblemInitTemplatesPassCheck(t *testing.T) {
	for _, tmpl := range templateNames() {
		t.Run(tmpl, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "p")
			if out, _, err := problemCLI(t, "init", dir, "--template", tmpl); err != nil || !strings.Contains(out, "problem.json") {
				t.Fatalf("init: %v\n%s", err, out)
			}
			subs, _ := filepath.Glob(filepath.Join(dir, "submissions", "*", "*"))
			if len(subs) < 2 {
				t.Fatalf("template %s has %d submissions, want an accepted one and a failing one", tmpl, len(subs))
			}
			out, _, err := problemCLI(t, "check", dir, "--sandbox", "none", "--json")
			if err != nil {
				t.Fatalf("check: %v\n%s", err, out)
			}
			var rep checkReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("check --json: %v\n%s", err, out)
			}
			if !rep.OK || len(rep.Submissions) != len(subs) || len(rep.Issues) != 0 {
				t.Fatalf("report %+v, want ok with %d submissions", rep, len(subs))
			}
			if len(rep.Margin) == 0 || rep.Margin[0].Limit != "runtime_config.evaluator.time_limit_ms" {
				t.Errorf("margin %+v, want the time limit first", rep.Margin)
			}
		})
	}
}

func TestProblemInitRefuses(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x"), nil, 0o644)
	if _, _, err := problemCLI(t, "init", dir); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("init into a non-empty folder: %v", err)
	}
	if _, _, err := problemCLI(t, "init", filepath.Join(dir, "new"), "--template", "nope"); err == nil ||
		!strings.Contains(err.Error(), "aplusb") {
		t.Errorf("unknown template: %v, want the list of templates", err)
	}
}

// brokenProblem is the aplusb template with files replaced (a nil value
// removes the file).
func brokenProblem(t *testing.T, files map[string]*string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "p")
	if _, _, err := problemCLI(t, "init", dir, "--template", "aplusb"); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if body == nil {
			os.Remove(path)
			continue
		}
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(*body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func str(s string) *string { return &s }

// A broken problem fails check with a message naming the file and field.
func TestProblemCheckNamesWhatIsWrong(t *testing.T) {
	good := `{"format_version": 1, "title": "A + B", "runtime_config": {"evaluator": {"command": "python3 evaluate.py"}, "solution": {"call_timeout_ms": 2000}}}`
	for name, tc := range map[string]struct {
		files map[string]*string
		want  string
	}{
		"bad JSON": {map[string]*string{"problem.json": str("{\"title\": \"x\",\n}")},
			"problem.json: not valid JSON: line 2, column 1"},
		"wrong type": {map[string]*string{"problem.json": str(strings.Replace(good, "2000", `"2000"`, 1))},
			"problem.json: runtime_config.solution.call_timeout_ms: want an integer, got string"},
		"misspelt field": {map[string]*string{"problem.json": str(strings.Replace(good, "call_timeout_ms", "call_timout_ms", 1))},
			`problem.json: runtime_config.solution.call_timout_ms: unknown field; did you mean "call_timeout_ms"?`},
		"unknown command": {map[string]*string{"problem.json": str(strings.Replace(good, "python3 evaluate.py", "ruby evaluate.rb", 1))},
			`problem.json: runtime_config.evaluator.command: evaluator command not on the allow-list: "ruby"`},
		"missing evaluate.py": {map[string]*string{"evaluate.py": nil},
			"evaluate.py: evaluator file not found"},
		"limits that contradict": {map[string]*string{"problem.json": str(strings.Replace(good, `"command": "python3 evaluate.py"`, `"command": "python3 evaluate.py", "time_limit_ms": 1000`, 1))},
			"problem.json: runtime_config.solution.call_timeout_ms: 2000 ms is longer than the whole evaluation"},
		"a submission in the wrong folder": {map[string]*string{"submissions/wrong_answer/right.py": str("def add(a, b):\n    return a + b\n")},
			"submissions/wrong_answer/right.py"},
		"an unknown verdict folder": {map[string]*string{"submissions/accepted_maybe/x.py": str("")},
			"submissions/accepted_maybe: not a verdict folder"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := brokenProblem(t, tc.files)
			out, _, err := problemCLI(t, "check", dir, "--sandbox", "none")
			if err == nil {
				t.Fatalf("check passed, want a failure naming %q\n%s", tc.want, out)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("output does not name %q:\n%s", tc.want, out)
			}
			if name == "a submission in the wrong folder" && !strings.Contains(out, "DIFFERS") {
				t.Errorf("the differing row is not marked:\n%s", out)
			}
		})
	}
}

// tether judge keeps running a problem with a field it does not know (a
// Neuro OJ problem may carry its own), and says so on stderr.
func TestJudgeWarnsOfUnknownProblemFields(t *testing.T) {
	dir, sol := shellProblem(t)
	raw, _ := os.ReadFile(filepath.Join(dir, "problem.json"))
	os.WriteFile(filepath.Join(dir, "problem.json"), []byte(strings.Replace(string(raw), `{"runtime_config"`, `{"titel":"x","runtime_config"`, 1)), 0o644)
	out, stderr, err := judgeCLIWithStderr(t, dir, sol, "--sandbox", "none")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "verdict:  WrongAnswer") {
		t.Errorf("the problem was not judged:\n%s", out)
	}
	if !strings.Contains(stderr, `warning: problem.json: titel: unknown field; did you mean "title"?`) {
		t.Errorf("stderr has no warning about the unknown field:\n%s", stderr)
	}
}

// Every command's --sandbox help names each kind sandbox.SelectFrom
// accepts, rootless included, and problem check --help says so too.
func TestSandboxHelpListsEveryKind(t *testing.T) {
	fake := func() (sandbox.Runner, error) { return sandbox.NewPlain(), nil }
	var kinds []string
	for _, kind := range []string{"auto", "linux", "rootless", "none", "gvisor", "docker"} {
		if _, _, err := sandbox.SelectFrom(kind, sandbox.Makers{Linux: fake, Rootless: fake}); err == nil {
			kinds = append(kinds, kind)
		} else if !errors.Is(err, sandbox.ErrUnknownKind) {
			t.Fatal(err)
		}
	}
	if !slices.Contains(kinds, "rootless") {
		t.Fatalf("accepted kinds %v", kinds)
	}
	seen := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if f := c.Flags().Lookup("sandbox"); f != nil {
			seen++
			for _, kind := range kinds {
				if !strings.Contains(f.Usage, kind) {
					t.Errorf("%s --sandbox help %q does not name %s", c.CommandPath(), f.Usage, kind)
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(thisMachine))
	if seen < 4 {
		t.Fatalf("only %d commands have --sandbox", seen)
	}
	out, _, err := problemCLI(t, "check", "--help")
	if err != nil || !strings.Contains(out, "rootless") {
		t.Fatalf("problem check --help: %v\n%s", err, out)
	}
}

// Under rootless, check warns about each submission whose memory verdict
// could differ under linux; under linux it has nothing to say.
func TestMemoryWarningsUnderRootless(t *testing.T) {
	p := &judge.Problem{}
	p.Runtime.Solution.MemoryLimitMB = 64
	rows := []checkRow{
		{File: "submissions/memory_limit_exceeded/spread.py", Expected: "MemoryLimitExceeded", Got: "Accepted"},
		{File: "submissions/memory_limit_exceeded/big.py", Expected: "MemoryLimitExceeded", Got: "MemoryLimitExceeded", OK: true},
		{File: "submissions/accepted/near.py", Expected: "Accepted", Got: "Accepted", OK: true, MemoryKB: 50 * 1024},
		{File: "submissions/accepted/small.py", Expected: "Accepted", Got: "Accepted", OK: true, MemoryKB: 10 * 1024},
	}
	got := memoryWarnings("rootless", p, rows)
	if len(got) != 2 || !strings.HasPrefix(got[0], "submissions/memory_limit_exceeded/spread.py: Accepted under the rootless sandbox") ||
		!strings.HasPrefix(got[1], "submissions/accepted/near.py: its largest process used 51200 of 65536 KiB") {
		t.Fatalf("warnings %q", got)
	}
	if w := memoryWarnings("linux", p, rows); len(w) != 0 {
		t.Fatalf("linux: %q", w)
	}
}
