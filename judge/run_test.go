package judge

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"
)

func TestAccept(t *testing.T) {
	r := judgeCase{eval: "add", sol: "basic", opts: Options{SubmissionID: "s-1", RejudgeSeq: 2}}.run(t)
	wantStatus(t, r, Accepted)
	if r.Score != 10000 || details(t, r)["sum"] != 5.0 {
		t.Fatalf("score %d details %s", r.Score, r.Details)
	}
	if r.Output != "case 1 ok\n"+StderrSeparator+"evaluator log line\n" {
		t.Fatalf("output %q", r.Output)
	}
	if r.SubmissionID != "s-1" || r.RejudgeSeq != 2 || r.Sandbox != "none" || r.Calls.Count != 1 {
		t.Fatalf("result %+v", r)
	}
	if r.MemoryKB <= 0 {
		t.Fatalf("memory_kb %d: want the solution's peak", r.MemoryKB)
	}
}

// The runs whose verdict is a status and a message: the evaluator's own
// (its status wins), or one the judge decides when the evaluator or the
// solution host did not get as far as a result.
func TestVerdictMessages(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  judgeCase
		want Status
		msg  string
	}{
		{"evaluator status wins", judgeCase{eval: "runtime-error", sol: "basic"}, RuntimeError, "the solution crashed on case 3"},
		{"no result without a timeout", judgeCase{eval: "no-result", sol: "basic"}, SystemError, "evaluator ended without a result"},
		{"evaluator start timeout", judgeCase{eval: "silent", sol: "basic", opts: Options{StartTimeout: 300 * time.Millisecond}},
			SystemError, "evaluator start timeout"},
		{"evaluator exit without output", judgeCase{eval: "silent-exit", sol: "basic"}, SystemError, "evaluator exited without output"},
		{"solution ready timeout", judgeCase{eval: "add", sol: "never-ready", solRC: map[string]any{"ready_timeout_ms": 200}},
			SystemError, "solution host did not start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.run.run(t)
			wantStatus(t, r, tc.want)
			if msg := details(t, r)["message"]; msg != tc.msg {
				t.Fatalf("message %q, want %q; details %s", msg, tc.msg, r.Details)
			}
		})
	}
}

// The evaluator's score is kept as given, as Neuro OJ's judge passes it
// on: above the full score, or below zero (ScoreNote flags both).
func TestScoreKeptAsGiven(t *testing.T) {
	r := judgeCase{eval: "score-high", sol: "basic"}.run(t)
	wantStatus(t, r, Accepted)
	if r.Score != 123456 || ScoreNote(r.Score) == "" {
		t.Fatalf("score %d (note %q), want 123456, flagged", r.Score, ScoreNote(r.Score))
	}
	r = judgeCase{eval: "score-low", sol: "basic"}.run(t)
	wantStatus(t, r, WrongAnswer)
	if r.Score != -5 || ScoreNote(r.Score) == "" {
		t.Fatalf("score %d (note %q), want -5, flagged", r.Score, ScoreNote(r.Score))
	}
}

// A status of the evaluator's own that is a plain identifier is passed
// through with its score and details, as Neuro OJ's judge does.
func TestEvaluatorsOwnStatusPassesThrough(t *testing.T) {
	r := judgeCase{eval: "own-status", sol: "basic"}.run(t)
	wantStatus(t, r, "PartiallyAccepted")
	if r.Score != 5000 || string(r.Details) != `{"passed":3}` {
		t.Fatalf("score %d details %s", r.Score, r.Details)
	}
}

func TestUnparsablePayloadIsSystemError(t *testing.T) {
	for _, role := range []string{"bad-payload", "bad-status"} {
		r := judgeCase{eval: role, sol: "basic"}.run(t)
		wantStatus(t, r, SystemError)
		if !strings.Contains(details(t, r)["message"].(string), ErrBadPayload.Error()) {
			t.Fatalf("%s: details %s", role, r.Details)
		}
	}
}

func TestResultAcrossReadsWithoutFinalNewline(t *testing.T) {
	r := judgeCase{eval: "split-result", sol: "basic"}.run(t)
	wantStatus(t, r, PartiallyCorrect)
	if r.Score != 4200 || details(t, r)["n"] != 1.0 {
		t.Fatalf("score %d details %s", r.Score, r.Details)
	}
	if r.Output != "before\n" {
		t.Fatalf("output %q: the marker and payload are not output", r.Output)
	}
}

func TestNoResultAfterCallTimeoutIsTLEWithExactText(t *testing.T) {
	r := judgeCase{eval: "timeout-exact", sol: "basic"}.run(t)
	wantStatus(t, r, TimeLimitExceeded)
	if !strings.HasPrefix(r.Output, "exact: true\n") || r.Calls.Timeouts != 1 {
		t.Fatalf("output %q calls %+v", r.Output, r.Calls)
	}
}

// The evaluator's time limit: TimeLimitExceeded when the time ran out
// while it waited on the solution, SystemError when it was its own.
func TestEvaluatorTimeLimit(t *testing.T) {
	r := judgeCase{eval: "slow-call", sol: "basic", evalRC: map[string]any{"time_limit_ms": 300}}.run(t)
	wantStatus(t, r, TimeLimitExceeded)
	if r.TimeMs < 300 || r.Output != "started\n" {
		t.Fatalf("time_ms %d output %q", r.TimeMs, r.Output)
	}
	r = judgeCase{eval: "slow", sol: "basic", evalRC: map[string]any{"time_limit_ms": 300}}.run(t)
	wantStatus(t, r, SystemError)
	if msg := details(t, r)["message"]; !strings.HasPrefix(fmt.Sprint(msg), "evaluator exceeded its own time limit") || r.TimeMs < 300 {
		t.Fatalf("time_ms %d message %q", r.TimeMs, msg)
	}
}

func TestRestartVersusContinue(t *testing.T) {
	r := judgeCase{eval: "restart", sol: "basic"}.run(t)
	wantStatus(t, r, Accepted)
	d := details(t, r)
	if d["timeout"] != true || d["message"] != "call timeout" || d["same_pid"] != false || r.Calls.Restarts != 1 || r.Calls.Timeouts != 1 {
		t.Fatalf("restart: details %s calls %+v", r.Details, r.Calls)
	}
	r = judgeCase{eval: "restart", sol: "basic", solRC: map[string]any{"on_call_timeout": "continue"}}.run(t)
	wantStatus(t, r, Accepted)
	d = details(t, r)
	if d["timeout"] != true || d["same_pid"] != true || r.Calls.Restarts != 0 {
		t.Fatalf("continue: details %s calls %+v", r.Details, r.Calls)
	}
}

func TestCapabilitiesWithCapRegTimeout(t *testing.T) {
	r := judgeCase{eval: "capability", sol: "caps"}.run(t)
	wantStatus(t, r, Accepted)
	v := details(t, r)["value"].([]any)
	if v[0] != "echo:hi" || v[1] != "CallTimeout" || v[2] != "call timeout" {
		t.Fatalf("value %v", v)
	}
	// The capability's timeout is counted apart from the evaluator's calls.
	if r.Calls.CapabilityTimeouts != 1 || r.Calls.Timeouts != 0 {
		t.Fatalf("calls %+v", r.Calls)
	}
}

func TestForgedAndDuplicateResponsesDropped(t *testing.T) {
	r := judgeCase{eval: "forged", sol: "forger"}.run(t)
	wantStatus(t, r, Accepted)
	d := details(t, r)
	if d["first"] != `{"type":"result","id":"c1","value":"answer-c1"}` ||
		d["second"] != `{"type":"result","id":"c2","value":"answer-c2"}` {
		t.Fatalf("details %s", r.Details)
	}
	// Per call the forger sends a result for an id never called and a
	// duplicate result (unknown-id), and a call (a type the solution may
	// not send); the evaluator's own result for c3 is owed by nobody.
	if want := map[string]int{"unknown-id": 5, "type": 2}; !maps.Equal(r.Dropped, want) {
		t.Fatalf("dropped %v, want %v", r.Dropped, want)
	}
}

func TestDuplicateCallIDRejected(t *testing.T) {
	r := judgeCase{eval: "duplicate", sol: "basic"}.run(t)
	wantStatus(t, r, Accepted)
	if line := details(t, r)["line"]; line != `{"type":"error","id":"d","code":"Rejected","message":"duplicate call id"}` {
		t.Fatalf("line %v", line)
	}
}

func TestOversizeFramesRejected(t *testing.T) {
	r := judgeCase{eval: "oversize", sol: "big"}.run(t)
	wantStatus(t, r, Accepted)
	d := details(t, r)
	arg, ret := d["arg"].(map[string]any), d["ret"].(map[string]any)
	if arg["id"] != "big-arg" || arg["code"] != "Rejected" || !strings.HasPrefix(arg["message"].(string), "frame size ") {
		t.Fatalf("oversize call answer %v", arg)
	}
	if ret["id"] != "big-ret" || ret["code"] != "Rejected" {
		t.Fatalf("oversize result answer %v", ret)
	}
}

// The evaluator's output is kept as printed (leading and trailing white
// space, blank lines); the result lines are not output. With NeuroOJ, the
// output holds them where they were printed, as Neuro OJ's judge's does,
// the signed marker as the plain one (the nonce never leaves the run), and
// details is null when the evaluator gave none.
func TestOutputAsPrinted(t *testing.T) {
	const printed = "  two spaces\n\ttab\ntrailing  \n \n"
	r := judgeCase{eval: "printed", sol: "basic"}.run(t)
	wantStatus(t, r, Accepted)
	if r.Output != printed || string(r.Details) != "{}" {
		t.Fatalf("output %q details %s, want %q and {}", r.Output, r.Details, printed)
	}
	r = judgeCase{eval: "printed", sol: "basic", opts: Options{NeuroOJ: true}}.run(t)
	wantStatus(t, r, Accepted)
	if want := printed + "---RESULT---\n" + `{"status":"Accepted","score":10000}` + "\n"; r.Output != want || r.Details != nil {
		t.Fatalf("Neuro OJ's output %q details %s, want %q and none", r.Output, r.Details, want)
	}
}
