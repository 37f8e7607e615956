package judge

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// exitGrace is the StopGrace of runs whose sides must exit on their own: a
// loaded machine (or the race detector) can take longer than the harness's
// 200 ms, and a side that exits in time costs nothing of it.
const exitGrace = 10 * time.Second

func wantExitCode(t *testing.T, side string, e *ProcessExit, code int) {
	t.Helper()
	if e == nil || e.ExitCode == nil || *e.ExitCode != code || e.Signal != "" || e.KilledByJudge || e.Error != "" {
		b, _ := json.Marshal(e)
		t.Fatalf("%s exit %s, want exit_code %d", side, b, code)
	}
}

func wantSignal(t *testing.T, side string, e *ProcessExit, sig string, byJudge bool) {
	t.Helper()
	if e == nil || e.ExitCode != nil || e.Signal != sig || e.KilledByJudge != byJudge || e.Error != "" {
		b, _ := json.Marshal(e)
		t.Fatalf("%s exit %s, want signal %s, killed_by_judge %v", side, b, sig, byJudge)
	}
}

func TestExitNormal(t *testing.T) {
	r := judgeCase{eval: "add", sol: "basic", opts: Options{StopGrace: exitGrace}}.run(t)
	wantStatus(t, r, Accepted)
	wantExitCode(t, "evaluator", r.Exit.Evaluator, 0)
	wantExitCode(t, "solution", r.Exit.Solution, 0) // exits on stdin EOF
	b, _ := json.Marshal(r)
	if !strings.Contains(string(b), `"exit":{"evaluator":{"exit_code":0,"killed_by_judge":false},"solution":{"exit_code":0,"killed_by_judge":false}}`) {
		t.Fatalf("result JSON %s", b)
	}
}

func TestExitCodeOfSolution(t *testing.T) {
	r := judgeCase{eval: "add", sol: "exit-3", opts: Options{StopGrace: exitGrace}}.run(t)
	wantStatus(t, r, WrongAnswer) // the evaluator's verdict: Decide is unchanged
	wantExitCode(t, "solution", r.Exit.Solution, 3)
	wantExitCode(t, "evaluator", r.Exit.Evaluator, 0)
}

func TestSolutionKilledBySignal(t *testing.T) {
	r := judgeCase{eval: "add", sol: "self-kill", opts: Options{StopGrace: exitGrace}}.run(t)
	wantStatus(t, r, WrongAnswer)
	wantSignal(t, "solution", r.Exit.Solution, "SIGKILL", false)

	c := judgeCase{eval: "add", opts: Options{StopGrace: exitGrace}, solRC: map[string]any{"command": []string{"sh", "-c",
		`echo '{"type":"ready"}'; read line; kill -SEGV $$; sleep 60`}}}
	r = c.run(t)
	wantStatus(t, r, WrongAnswer)
	wantSignal(t, "solution", r.Exit.Solution, "SIGSEGV", false)
	wantExitCode(t, "evaluator", r.Exit.Evaluator, 0)
}

func TestSolutionKilledByTheJudge(t *testing.T) {
	r := judgeCase{eval: "add", sol: "never-ready", solRC: map[string]any{"ready_timeout_ms": 200}}.run(t)
	wantStatus(t, r, SystemError)
	wantSignal(t, "solution", r.Exit.Solution, "SIGKILL", true)
}

// After a restart the result reports the last solution process, not the
// one the judge killed for overrunning its call.
func TestExitReportsTheLastSolution(t *testing.T) {
	r := judgeCase{eval: "restart", sol: "basic", opts: Options{StopGrace: exitGrace}}.run(t)
	wantStatus(t, r, Accepted)
	if r.Calls.Restarts != 1 {
		t.Fatalf("calls %+v", r.Calls)
	}
	wantExitCode(t, "solution", r.Exit.Solution, 0)
}

func TestExitNullForSidesNeverStarted(t *testing.T) {
	c := judgeCase{eval: "add", sol: "basic"}
	c.solRC = map[string]any{"command": []string{filepath.Join(t.TempDir(), "missing")}}
	r := c.run(t)
	wantStatus(t, r, SystemError)
	if r.Exit.Solution != nil {
		t.Fatalf("solution exit %+v for a solution that never started", r.Exit.Solution)
	}
	if r.Exit.Evaluator == nil {
		t.Fatal("no evaluator exit: the evaluator did start")
	}
	b, _ := json.Marshal(r)
	if !strings.Contains(string(b), `"solution":null`) {
		t.Fatalf("result JSON %s", b)
	}
}
