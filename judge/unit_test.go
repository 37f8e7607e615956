package judge

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParsePayload(t *testing.T) {
	ok := []struct {
		in     string
		status Status
		score  int64
	}{
		{`{"status":"Accepted","score":10000,"details":{"a":1}}`, Accepted, 10000},
		{`{"status":"WrongAnswer"}`, WrongAnswer, 0},
		{`{"status":"PartiallyCorrect","score":42.6}`, PartiallyCorrect, 43},
		// Neuro OJ's judge passes the score on unclamped: accept(score=1000)
		// is 100000, kept (ScoreNote flags it).
		{`{"status":"Accepted","score":100000}`, Accepted, 100000},
		{`{"status":"Accepted","score":1e300}`, Accepted, 1 << 53},
		{`{"status":"Accepted","score":1e999}`, Accepted, 1 << 53},
		{`{"status":"Accepted","score":-3}`, Accepted, -3},
		// Any plain identifier is passed through, with its score.
		{`{"status":"PartiallyAccepted","score":5000,"details":{"passed":3}}`, "PartiallyAccepted", 5000},
		{`{"status":"TimeLimitExceeded","score":5,"extra":true}`, TimeLimitExceeded, 5},
	}
	for _, c := range ok {
		p, err := ParsePayload([]byte(c.in))
		if err != nil || p.Status != c.status || p.Score != c.score {
			t.Errorf("ParsePayload(%s) = %+v, %v", c.in, p, err)
		}
	}
	for _, in := range []string{``, `nope`, `{}`, `{"status":"Partially Accepted"}`, `{"status":"9lives"}`, `{"status":"Accepted!"}`, `{"status":""}`,
		`{"status":"` + strings.Repeat("A", MaxStatusLen+1) + `"}`, `{"status":3}`,
		`{"status":"Accepted","score":"10"}`, `{"status":"Accepted","details":[1]}`, `{"status":"Accepted"} x`} {
		if _, err := ParsePayload([]byte(in)); !errors.Is(err, ErrBadPayload) {
			t.Errorf("ParsePayload(%s) err = %v, want ErrBadPayload", in, err)
		}
	}
}

func TestStatusEnum(t *testing.T) {
	for _, s := range Statuses {
		back, err := ParseStatus(s.String())
		if err != nil || back != s {
			t.Fatalf("%v round trip: %v %v", s, back, err)
		}
		b, _ := json.Marshal(s)
		var u Status
		if err := json.Unmarshal(b, &u); err != nil || u != s {
			t.Fatalf("%v JSON round trip: %s %v", s, b, err)
		}
	}
	if _, err := ParseStatus("OK"); !errors.Is(err, ErrUnknownStatus) {
		t.Fatal(err)
	}
	// Neuro OJ's evaluators report CompileError; the payload keeps it.
	if p, err := ParsePayload([]byte(`{"status":"CompileError","details":{"message":"SyntaxError"}}`)); err != nil || p.Status.String() != "CompileError" {
		t.Fatalf("CompileError payload: %v %v", p.Status, err)
	}
	if _, err := json.Marshal(Status("")); err == nil {
		t.Fatal("zero Status encoded")
	}
	// An evaluator's own status: kept through JSON, not one of tether's, not Accepted.
	var own Status
	if err := json.Unmarshal([]byte(`"PartiallyAccepted"`), &own); err != nil || own != "PartiallyAccepted" || own.Known() || own == Accepted {
		t.Fatalf("PartiallyAccepted: %q %v", own, err)
	}
	if _, err := ParseStatus("PartiallyAccepted"); !errors.Is(err, ErrUnknownStatus) {
		t.Fatalf("ParseStatus took an evaluator's own status: %v", err)
	}
	if err := json.Unmarshal([]byte(`"no spaces"`), &own); !errors.Is(err, ErrUnknownStatus) {
		t.Fatalf("a status with a space decoded: %v", err)
	}
}

// A score outside 0..MaxScore is flagged, one inside is not.
func TestScoreNote(t *testing.T) {
	for score, want := range map[int64]string{0: "", MaxScore: "", 100000: "above the full score of 100.00", -1: "below zero"} {
		if got := ScoreNote(score); !strings.Contains(got, want) || (want == "") != (got == "") {
			t.Errorf("ScoreNote(%d) = %q, want %q", score, got, want)
		}
	}
}

func TestDecidePrecedence(t *testing.T) {
	pl := &Payload{Status: Accepted, Score: 9000}
	cases := []struct {
		name string
		o    Outcome
		want Status
	}{
		{"failure beats all", Outcome{Failure: "x", TimeLimitExceeded: true, Payload: pl}, SystemError},
		{"evaluator MLE beats the solution's limits", Outcome{EvaluatorMemoryExceeded: true, TimeLimitExceeded: true,
			MemoryLimitExceeded: true, SolutionCPUExceeded: true, Payload: pl}, SystemError},
		{"evaluator MLE beats silent exit", Outcome{EvaluatorMemoryExceeded: true, EvaluatorSilentExit: true}, SystemError},
		{"start timeout", Outcome{EvaluatorStartTimeout: true, CallTimeouts: 1}, SystemError},
		{"silent exit", Outcome{EvaluatorSilentExit: true}, SystemError},
		{"not ready beats TLE", Outcome{SolutionNotReady: true, TimeLimitExceeded: true}, SystemError},
		{"TLE with a call in flight beats result", Outcome{TimeLimitExceeded: true, CallInFlightAtTimeLimit: true, Payload: pl}, TimeLimitExceeded},
		{"TLE with a call in flight beats MLE", Outcome{TimeLimitExceeded: true, CallInFlightAtTimeLimit: true, MemoryLimitExceeded: true}, TimeLimitExceeded},
		// The evaluator's own time, no call in flight: the problem, not the solution.
		{"evaluator's own TLE beats result", Outcome{TimeLimitExceeded: true, Payload: pl}, SystemError},
		{"solution CPU beats evaluator's own TLE", Outcome{TimeLimitExceeded: true, SolutionCPUExceeded: true}, TimeLimitExceeded},
		{"solution MLE beats evaluator's own TLE", Outcome{TimeLimitExceeded: true, MemoryLimitExceeded: true}, MemoryLimitExceeded},
		{"MLE beats result", Outcome{MemoryLimitExceeded: true, Payload: pl}, MemoryLimitExceeded},
		{"MLE beats CPU cap", Outcome{MemoryLimitExceeded: true, SolutionCPUExceeded: true}, MemoryLimitExceeded},
		{"CPU cap beats result", Outcome{SolutionCPUExceeded: true, Payload: pl}, TimeLimitExceeded},
		{"bad payload", Outcome{PayloadErr: ErrBadPayload, CallTimeouts: 2}, SystemError},
		{"evaluator wins", Outcome{Payload: pl, CallTimeouts: 3}, Accepted},
		{"no result after timeout", Outcome{CallTimeouts: 1}, TimeLimitExceeded},
		{"no result", Outcome{}, SystemError},
	}
	for _, c := range cases {
		v := Decide(c.o)
		if v.Status != c.want {
			t.Errorf("%s: %v, want %v", c.name, v.Status, c.want)
		}
		if v.Status != Accepted && v.Score != 0 || v.Status == Accepted && v.Score != 9000 {
			t.Errorf("%s: score %d", c.name, v.Score)
		}
	}
}

func writeProblem(t *testing.T, pj string, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	if pj != "" {
		os.WriteFile(filepath.Join(dir, "problem.json"), []byte(pj), 0o644)
	}
	for _, f := range files {
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	return dir
}

func TestLoadProblemDefaultsAndUnknownFields(t *testing.T) {
	dir := writeProblem(t, `{"format_version":1,"title":"T","image":"x","runtime_config":{"future":1}}`, "evaluate.py")
	p, err := LoadProblem(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	rc := p.Runtime
	if strings.Join(rc.Evaluator.Command, " ") != "python3 evaluate.py" || rc.Evaluator.TimeLimitMs != 30000 ||
		rc.Solution.CallTimeoutMs != 5000 || rc.Solution.ReadyTimeoutMs != 10000 ||
		rc.Solution.OnCallTimeout != "restart" || rc.Solution.Command != nil || p.Title != "T" ||
		rc.Evaluator.MemoryLimitMB != 256 || rc.Solution.MemoryLimitMB != 256 {
		t.Fatalf("%+v", p)
	}
	if !strings.Contains(string(p.Raw), `"image":"x"`) {
		t.Fatalf("raw problem.json not kept: %s", p.Raw)
	}
	dir = writeProblem(t, `{"runtime_config":{"evaluator":{"command":"node ev.js --x","time_limit_ms":700,"network":{"enabled":true}},
		"solution":{"command":["./host","-v"],"call_timeout_ms":50,"on_call_timeout":"continue","ready_timeout_ms":9,"memory_limit_mb":64}}}`)
	p, err = LoadProblem(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	rc = p.Runtime
	if strings.Join(rc.Evaluator.Command, " ") != "node ev.js --x" || rc.Evaluator.TimeLimitMs != 700 || !rc.Evaluator.Network ||
		strings.Join(rc.Solution.Command, " ") != "./host -v" || rc.Solution.CallTimeoutMs != 50 ||
		rc.Solution.OnCallTimeout != "continue" || rc.Solution.ReadyTimeoutMs != 9 || rc.Solution.MemoryLimitMB != 64 {
		t.Fatalf("%+v", rc)
	}
}

func TestLoadProblemErrors(t *testing.T) {
	cases := []struct {
		dir  string
		want error
	}{
		{writeProblem(t, ""), ErrNoProblemJSON},
		{writeProblem(t, `{"title":`), ErrBadProblemJSON},
		{writeProblem(t, `{}`), ErrNoEvaluator},
		{writeProblem(t, `{"runtime_config":{"evaluator":{"command":"ruby x.rb"}}}`), ErrCommandNotAllowed},
		{writeProblem(t, `{"runtime_config":{"evaluator":{"command":""}}}`, "evaluate.py"), ErrBadProblemJSON},
		{writeProblem(t, `{"runtime_config":{"evaluator":{"command":5}}}`, "evaluate.py"), ErrBadProblemJSON},
		{writeProblem(t, `{"runtime_config":{"solution":{"call_timeout_ms":-1}}}`, "evaluate.py"), ErrBadProblemJSON},
		{writeProblem(t, `{"runtime_config":{"solution":{"on_call_timeout":"kill"}}}`, "evaluate.py"), ErrBadProblemJSON},
	}
	for i, c := range cases {
		_, err := LoadProblem(c.dir, nil)
		var pe *ProblemError
		if !errors.Is(err, c.want) || !errors.As(err, &pe) {
			t.Errorf("case %d: err = %v, want %v", i, err, c.want)
		}
	}
	// A value of the wrong type names its field and what it wants.
	for _, c := range []struct{ json, msg string }{
		{`{"runtime_config":{"evaluator":{"network":true}}}`, `runtime_config.evaluator.network: problem.json is not valid: want an object, got bool`},
		{`{"runtime_config":{"evaluator":{"time_limit_ms":1.5}}}`, `runtime_config.evaluator.time_limit_ms: problem.json is not valid: want an integer, got number 1.5`},
		{`{"title":5}`, `title: problem.json is not valid: want a string, got number`},
		{`{"runtime_config":{"evaluator":{"command":"sh -c 'python3 evaluate.py"}}}`, `runtime_config.evaluator.command: problem.json is not valid: "sh -c 'python3 evaluate.py": EOF found when expecting closing quote`},
	} {
		_, err := LoadProblem(writeProblem(t, c.json, "evaluate.py"), nil)
		if !errors.Is(err, ErrBadProblemJSON) || !strings.HasSuffix(err.Error(), c.msg) {
			t.Errorf("%s: err = %v, want it to end %q", c.json, err, c.msg)
		}
	}
	// A command line is split as a shell would, quotes and all.
	p, err := LoadProblem(writeProblem(t, `{"runtime_config":{"evaluator":{"command":"sh -c 'python3 evaluate.py' \"a b\""}}}`, "evaluate.py"), nil)
	if err != nil || !slices.Equal(p.Runtime.Evaluator.Command, []string{"sh", "-c", "python3 evaluate.py", "a b"}) {
		t.Errorf("quoted command: %q, %v", p.Runtime.Evaluator.Command, err)
	}
	dir := writeProblem(t, `{"runtime_config":{"evaluator":{"command":"ruby x.rb"}}}`)
	if _, err := LoadProblem(dir, []string{"ruby"}); err != nil {
		t.Fatalf("custom allow-list: %v", err)
	}
	if _, err := LoadSubmission(filepath.Join(dir, "missing.py")); !errors.Is(err, ErrSolutionFile) {
		t.Fatalf("LoadSubmission: %v", err)
	}
	if _, err := LoadSubmission(dir); !errors.Is(err, ErrSolutionFile) {
		t.Fatalf("LoadSubmission(dir): %v", err)
	}
}

// stderrTail keeps the last lines of a side's stderr in MaxStderrTail
// bytes, starting on a line and never inside a character.
func TestStderrTail(t *testing.T) {
	if got := stderrTail("short\n"); got != "short\n" {
		t.Errorf("short stderr: %q", got)
	}
	long := strings.Repeat("é", MaxStderrTail) + "\nlast line\n"
	if got := stderrTail(long); got != "last line\n" {
		t.Errorf("long stderr: %q", got)
	}
	oneLine := strings.Repeat("€", MaxStderrTail)
	got := stderrTail(oneLine)
	if len(got) > MaxStderrTail || !utf8.ValidString(got) || !strings.HasSuffix(oneLine, got) || len(got) < MaxStderrTail-3 {
		t.Errorf("one long line: %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
}
