package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testfiles"
	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/lm"
	tracepkg "github.com/tether-dev/tether/trace"
)

func runJudgeCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, _, err := judgeCLIWithStderr(t, args...)
	return out, err
}

// judgeJSON runs tether judge with args and --json and decodes its result
// and LM usage; a failed run fails t.
func judgeJSON(t *testing.T, args ...string) (*judge.Result, lm.UsageSummary) {
	t.Helper()
	out, err := runJudgeCLI(t, append(args, "--json")...)
	if err != nil {
		t.Fatal(err)
	}
	var res judge.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v in:\n%s", err, out)
	}
	var usage lm.UsageSummary
	if len(res.LMUsage) > 0 {
		if err := json.Unmarshal(res.LMUsage, &usage); err != nil {
			t.Fatalf("lm_usage %s: %v", res.LMUsage, err)
		}
	}
	return &res, usage
}

// shellProblem is a problem whose two sides are sh scripts.
func shellProblem(t *testing.T) (dir, solution string) {
	t.Helper()
	dir = t.TempDir()
	files := map[string]string{
		"problem.json": `{"runtime_config":{"evaluator":{"command":"sh evaluate.sh"},"solution":{"command":["sh","` +
			filepath.Join(dir, "host.sh") + `"]}}}`,
		"evaluate.sh": `echo '{"type":"call","id":"a","fn":"add","args":[1,2]}'
read line
echo "got: $line"
echo '---RESULT---'
echo '{"status":"WrongAnswer","score":2500,"details":{"case":1}}'
`,
		"host.sh": `echo '{"type":"ready"}'
read line
echo '{"type":"result","id":"a","value":3}'
`,
		"sol.py": "x = 1\n",
	}
	testfiles.Write(t, dir, files)
	return dir, filepath.Join(dir, "sol.py")
}

func TestJudgeCommandJSONAndTrace(t *testing.T) {
	dir, sol := shellProblem(t)
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	// --sandbox none: the solution runs host.sh from the problem folder, which
	// the linux runner rightly hides from it.
	res, _ := judgeJSON(t, dir, sol, "--sandbox", "none", "--submission-id", "s9", "--trace", trace)
	if res.Status != judge.WrongAnswer || res.Score != 2500 || res.SubmissionID != "s9" || res.Calls.Count != 1 || res.Sandbox != "none" ||
		res.Output != "got: {\"type\":\"result\",\"id\":\"a\",\"value\":3}\n" {
		t.Fatalf("result %+v", res)
	}
	lines, _ := os.ReadFile(trace)
	h, evs, err := tracepkg.ReadAll(bytes.NewReader(lines))
	if err != nil || h.SubmissionID != "s9" || h.Sandbox != "none" || len(evs) < 6 {
		t.Fatalf("%v; trace:\n%s", err, lines)
	}
	if last := evs[len(evs)-2]; last.Ev != tracepkg.KindVerdict || last.Result.Status != judge.WrongAnswer {
		t.Fatalf("trace:\n%s", lines)
	}
}

func TestJudgeCommandSummary(t *testing.T) {
	dir, sol := shellProblem(t)
	out, err := runJudgeCLI(t, dir, sol, "--sandbox", "none")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"verdict:  WrongAnswer", "score:    25.00\n", "calls:    1 (timeouts 0, restarts 0)", "got: "} {
		if !strings.Contains(out, want) {
			t.Fatalf("summary lacks %q:\n%s", want, out)
		}
	}
}

func TestJudgeCommandUsageErrors(t *testing.T) {
	dir, sol := shellProblem(t)
	if _, err := runJudgeCLI(t, t.TempDir(), sol); !errors.Is(err, judge.ErrNoProblemJSON) {
		t.Fatalf("missing problem.json: %v", err)
	}
	if _, err := runJudgeCLI(t, dir, filepath.Join(dir, "nope.py")); !errors.Is(err, judge.ErrSolutionFile) {
		t.Fatalf("missing solution: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "problem.json"), []byte(`{"runtime_config":{"evaluator":{"command":"ruby x.rb"}}}`), 0o644)
	if _, err := runJudgeCLI(t, dir, sol); !errors.Is(err, judge.ErrCommandNotAllowed) {
		t.Fatalf("command not allowed: %v", err)
	}
	if _, err := runJudgeCLI(t, dir); err == nil || !strings.Contains(err.Error(), "PROBLEM_DIR and SOLUTION_FILE") {
		t.Fatalf("one argument: %v, want an error naming the two arguments", err)
	}
}

func TestJudgeCommandReportsHowSidesEnded(t *testing.T) {
	dir, sol := shellProblem(t)
	out, err := runJudgeCLI(t, dir, sol, "--sandbox", "none", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Exit map[string]map[string]any `json:"exit"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	for _, side := range []string{"evaluator", "solution"} {
		e := res.Exit[side]
		if e["exit_code"] != 0.0 || e["killed_by_judge"] != false || e["signal"] != nil {
			t.Fatalf("exit.%s = %v in --json output:\n%s", side, e, out)
		}
	}
	// Clean exits are not news in the summary; a solution that dies by a
	// signal gets one line.
	if out, _ := runJudgeCLI(t, dir, sol, "--sandbox", "none"); strings.Contains(out, "ended:") {
		t.Fatalf("summary reports clean exits:\n%s", out)
	}
	host := filepath.Join(dir, "host.sh")
	body, _ := os.ReadFile(host)
	os.WriteFile(host, append(body, "kill -SEGV $$\n"...), 0o644)
	out, err = runJudgeCLI(t, dir, sol, "--sandbox", "none")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "ended:    evaluator exit 0, solution SIGSEGV\n") {
		t.Fatalf("summary lacks the solution's signal:\n%s", out)
	}
}

// What the relay dropped is counted in --json and shown in the summary.
func TestJudgeCommandReportsDroppedFrames(t *testing.T) {
	dir, sol := shellProblem(t)
	if out, _ := runJudgeCLI(t, dir, sol, "--sandbox", "none"); strings.Contains(out, "dropped:") {
		t.Fatalf("summary reports drops of a clean run:\n%s", out)
	}
	host := filepath.Join(dir, "host.sh")
	os.WriteFile(host, []byte(`echo '{"type":"ready"}'
read line
echo '{"type":"result","id":"forged","value":0}'
echo 'not a frame'
echo '{"type":"result","id":"a","value":3}'
`), 0o644)
	res, _ := judgeJSON(t, dir, sol, "--sandbox", "none")
	if res.Dropped["unknown-id"] != 1 || res.Dropped["solution-text"] != 1 || len(res.Dropped) != 2 {
		t.Fatalf("dropped %v", res.Dropped)
	}
	if out, _ := runJudgeCLI(t, dir, sol, "--sandbox", "none"); !strings.Contains(out, "dropped:  2 frames or lines (solution-text 1, unknown-id 1)\n") {
		t.Fatalf("summary lacks the drops:\n%s", out)
	}
}

// --allow-command replaces the allow-list of the evaluator command's first
// word: shellProblem's "sh evaluate.sh" passes by default and not without sh.
func TestJudgeCommandAllowList(t *testing.T) {
	dir, sol := shellProblem(t)
	if _, err := runJudgeCLI(t, dir, sol, "--sandbox", "none"); err != nil {
		t.Fatalf("default allow-list: %v", err)
	}
	_, err := runJudgeCLI(t, dir, sol, "--sandbox", "none", "--allow-command", "python3,node")
	if !errors.Is(err, judge.ErrCommandNotAllowed) || !strings.Contains(err.Error(), "--allow-command") {
		t.Fatalf("sh not allowed: err %v", err)
	}
	if _, err := runJudgeCLI(t, dir, sol, "--sandbox", "none", "--allow-command", "sh"); err != nil {
		t.Fatalf("--allow-command sh: %v", err)
	}
}

// Issue 17, defect 10: a side whose command fails said only "solution host
// did not start" and exit 127. The end of the solution's stderr is in the
// result (exit.solution.stderr) and in the summary; the evaluator's ends
// its output, in both.
func TestJudgeCommandShowsWhyASideDidNotStart(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"problem.json": `{"runtime_config":{"evaluator":{"command":"sh evaluate.sh"},` +
			`"solution":{"command":["sh","-c","echo starting >&2; echo 'cannot load libfoo.so: No such file' >&2; exit 127"],"ready_timeout_ms":20000}}}`,
		"evaluate.sh": `echo '{"type":"call","id":"1","fn":"add","args":[1,2]}'` + "\nread line\n",
		"broken.sh":   "echo 'evaluator: data.txt is missing' >&2\nexit 3\n",
		"sol.py":      "def add(a, b):\n    return a + b\n",
	}
	testfiles.Write(t, dir, files)
	sol := filepath.Join(dir, "sol.py")
	res, _ := judgeJSON(t, dir, sol, "--sandbox", "none")
	if e := res.Exit.Solution; res.Status != judge.SystemError || e == nil || e.ExitCode == nil || *e.ExitCode != 127 ||
		e.Stderr != "starting\ncannot load libfoo.so: No such file\n" {
		t.Fatalf("status %v, exit.solution %+v; want SystemError, exit 127 and the stderr", res.Status, res.Exit.Solution)
	}
	if out, _ := runJudgeCLI(t, dir, sol, "--sandbox", "none"); !strings.Contains(out, "solution stderr (last lines):\nstarting\ncannot load libfoo.so: No such file\n") {
		t.Fatalf("summary lacks the solution's stderr:\n%s", out)
	}

	os.WriteFile(filepath.Join(dir, "problem.json"), []byte(`{"runtime_config":{"evaluator":{"command":"sh broken.sh"}}}`), 0o644)
	res, _ = judgeJSON(t, dir, sol, "--sandbox", "none")
	if res.Status != judge.SystemError || !strings.HasSuffix(res.Output, judge.StderrSeparator+"evaluator: data.txt is missing\n") {
		t.Fatalf("status %v, output %q; want SystemError and the evaluator's stderr", res.Status, res.Output)
	}
	if out, _ := runJudgeCLI(t, dir, sol, "--sandbox", "none"); !strings.Contains(out, "evaluator: data.txt is missing") {
		t.Fatalf("summary lacks the evaluator's stderr:\n%s", out)
	}
}
