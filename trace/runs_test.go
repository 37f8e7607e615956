package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/internal/testfiles"
	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/judge/lmstart"
	"github.com/tether-dev/tether/sandbox"
)

// traceRun judges solution against the problem in dir (no isolation: the
// trace is what is tested) and returns the run's trace, read back.
func traceRun(t *testing.T, dir, solution string, max int64) (*judge.Result, Header, []*Event, string) {
	t.Helper()
	p, err := judge.LoadProblem(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := judge.LoadSubmission(solution)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	runner := sandbox.NewPlain()
	w := NewWriter(&buf, HeaderFor(p, sub, "s1", runner.Kind()), max)
	res, err := judge.Run(context.Background(), p, sub, &judge.Options{Runner: runner, SubmissionID: "s1",
		Observer: w, LM: lmstart.Starter(nil, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	h, evs, err := ReadAll(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("%v in:\n%s", err, buf.String())
	}
	return res, h, evs, buf.String()
}

func count(evs []*Event, pred func(*Event) bool) int {
	n := 0
	for _, ev := range evs {
		if pred(ev) {
			n++
		}
	}
	return n
}

// wantComplete checks what every trace of a finished run holds: its header,
// a call and an answer for every call the result counts, both sides' exits,
// the verdict matching the result, and the end line last.
func wantComplete(t *testing.T, res *judge.Result, h Header, evs []*Event) {
	t.Helper()
	if h.Trace != Version || h.SubmissionID != "s1" || h.Sandbox != "none" || h.Problem == "" {
		t.Errorf("header %+v", h)
	}
	calls := count(evs, func(e *Event) bool { return e.Ev == KindCall && e.Side == "evaluator" })
	answers := count(evs, func(e *Event) bool { return e.Ev == KindAnswer && e.Side == "evaluator" && e.Outcome != "refused" })
	if calls != res.Calls.Count || answers != calls {
		t.Errorf("%d calls and %d answers in the trace, the result counts %d calls", calls, answers, res.Calls.Count)
	}
	if n := count(evs, func(e *Event) bool { return e.Ev == KindExit && e.Side == "evaluator" }); n != 1 {
		t.Errorf("%d evaluator exits", n)
	}
	wantProcesses(t, evs)
	if n := len(evs); n < 2 || evs[n-2].Ev != KindVerdict || evs[n-1].Ev != KindEnd ||
		evs[n-2].Result.Status != res.Status || evs[n-2].Result.Score != res.Score {
		t.Fatalf("last events %+v %+v, result %v %d", evs[n-2], evs[n-1], res.Status, res.Score)
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].T < evs[i-1].T {
			t.Fatalf("event %d (%s at %d) before event %d (%s at %d)", i, evs[i].Ev, evs[i].T, i-1, evs[i-1].Ev, evs[i-1].T)
		}
	}
}

// wantProcesses checks that each process the trace saw end was seen to
// start before: the evaluator once, the solution's processes numbered 0,
// 1, ... in the order they started, each one's exit after its start.
func wantProcesses(t *testing.T, evs []*Event) {
	t.Helper()
	started := map[string]int{} // processes started per side
	exited := map[[2]any]bool{}
	for _, ev := range evs {
		switch ev.Ev {
		case KindStart:
			if ev.N != started[ev.Side] {
				t.Errorf("%s process %d started as number %d", ev.Side, started[ev.Side], ev.N)
			}
			started[ev.Side]++
		case KindExit:
			k := [2]any{ev.Side, ev.N}
			if ev.N >= started[ev.Side] || exited[k] {
				t.Errorf("%s process %d exited before it started, or twice (started: %d)", ev.Side, ev.N, started[ev.Side])
			}
			exited[k] = true
		}
	}
	if started["evaluator"] != 1 || started["solution"] < 1 {
		t.Errorf("processes started: %v, want one evaluator and at least one solution", started)
	}
}

func TestTracesOfEveryExample(t *testing.T) {
	testenv.Python3(t)
	examples, _ := filepath.Glob("../examples/*/problem.json")
	if len(examples) < 6 {
		t.Fatalf("found %d examples", len(examples))
	}
	for _, pj := range examples {
		dir := filepath.Dir(pj)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			sol := filepath.Join(dir, "solution.py")
			if _, err := os.Stat(sol); err != nil { // a solution that is not Python: build it
				sol = filepath.Join(t.TempDir(), "solution")
				build := exec.Command("go", "build", "-o", sol, "./"+filepath.Join(dir, "solution"))
				build.Env = append(os.Environ(), "CGO_ENABLED=0")
				if out, err := build.CombinedOutput(); err != nil {
					t.Fatalf("building %s's solution: %v\n%s", dir, err, out)
				}
			}
			res, h, evs, _ := traceRun(t, dir, sol, 0)
			if res.Status != judge.Accepted {
				t.Fatalf("%v %s", res.Status, res.Details)
			}
			wantComplete(t, res, h, evs)
			st := Compute(h, evs)
			if st.Verdict != "Accepted" || len(st.Functions) == 0 || st.Time.SolutionUs <= 0 || st.WallUs <= 0 {
				t.Errorf("stats %+v", st)
			}
			switch filepath.Base(dir) {
			case "capability":
				if n := count(evs, func(e *Event) bool { return e.Ev == KindCall && e.Side == "solution" }); n == 0 {
					t.Error("no capability call in the trace")
				}
				if count(evs, func(e *Event) bool { return e.Ev == KindAnswer && e.Outcome == "timeout" }) == 0 {
					t.Error("the slow capability's timeout is not in the trace")
				}
			case "bytes":
				if !bytes.Contains(concatFrames(evs), []byte(`"__bytes__"`)) {
					t.Error("no __bytes__ value in the trace")
				}
			case "llm":
				lm := filterKind(evs, KindLM)
				if len(lm) != 4 || lm[0].LM.Backend != "echo" || lm[0].LM.PromptBytes == 0 || lm[0].LM.LatencyUs <= 0 ||
					lm[3].LM.Error == "" || lm[2].LM.Budget.Calls != 3 || lm[2].LM.Budget.CallsLimit != 3 {
					t.Errorf("lm events: %d, %+v", len(lm), lm)
				}
				if st.LM == nil || st.LM.Requests != 4 || st.LM.Errors != 1 {
					t.Errorf("lm stats %+v", st.LM)
				}
			}
		})
	}
}

func concatFrames(evs []*Event) []byte {
	var b []byte
	for _, ev := range evs {
		b = append(b, ev.Frame...)
	}
	return b
}

func filterKind(evs []*Event, kind string) []*Event {
	var out []*Event
	for _, ev := range evs {
		if ev.Ev == kind {
			out = append(out, ev)
		}
	}
	return out
}

func writeProblem(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testfiles.Write(t, dir, files)
	return dir
}

// The solution hangs in its first call: the trace shows the timeout, the
// other call failed by the restart, the restart, the killed solution's
// exit and the fresh solution answering.
func TestTraceOfARestart(t *testing.T) {
	testenv.Python3(t)
	dir := writeProblem(t, map[string]string{
		"problem.json": `{"title":"restart","runtime_config":{"solution":{"call_timeout_ms":20000}}}`,
		"evaluate.py": `from tether_sdk.evaluator import SolutionRunner, SolutionTimeoutError, result
r = SolutionRunner()
r.call("add", 0, 0)  # the solution is up: hang's 300 ms run in it, not in its start-up
try:
    r.call("hang", timeout_ms=300)
except SolutionTimeoutError:
    pass
result.accept(100, value=r.call("add", 1, 2))
`,
		"solution.py": "import time\n\ndef hang():\n    time.sleep(60)\n\ndef add(a, b):\n    return a + b\n",
	})
	res, h, evs, _ := traceRun(t, dir, filepath.Join(dir, "solution.py"), 0)
	if res.Status != judge.Accepted || res.Calls.Restarts != 1 || res.Calls.Count != 3 {
		t.Fatalf("%v %s %+v", res.Status, res.Details, res.Calls)
	}
	wantComplete(t, res, h, evs)
	restarts := filterKind(evs, KindRestart)
	if len(restarts) != 1 || restarts[0].N != 1 {
		t.Fatalf("restarts %+v", restarts)
	}
	var timeout *Event
	for _, ev := range evs {
		if ev.Ev == KindAnswer && ev.Fn == "hang" {
			timeout = ev
		}
	}
	if timeout == nil || timeout.Outcome != "timeout" || timeout.Us < 300_000 {
		t.Fatalf("hang's answer %+v", timeout)
	}
	exits := filterKind(evs, KindExit)
	killed := count(exits, func(e *Event) bool { return e.Side == "solution" && e.N == 0 && e.Exit.KilledByJudge })
	if killed != 1 || count(exits, func(e *Event) bool { return e.Side == "solution" }) != 2 {
		t.Errorf("exits %+v", exits)
	}
	if n := count(evs, func(e *Event) bool { return e.Ev == KindStart && e.Side == "solution" && e.N == 1 }); n != 1 {
		t.Errorf("%d starts of the restarted solution (process 1), want 1", n)
	}
	st := Compute(h, evs)
	if st.Restarts != 1 || len(st.Slowest) != 3 || st.Functions[1].Fn != "hang" || st.Functions[1].Outcomes["timeout"] != 1 {
		t.Errorf("stats %+v", st)
	}
}

// A solution flooding its stdout with text: the trace stops at its cap,
// the verdict and the end line still close it, and the end line counts
// the lines it left out.
func TestTraceOfAFlood(t *testing.T) {
	testenv.Python3(t)
	dir := writeProblem(t, map[string]string{
		"problem.json": `{"title":"flood","runtime_config":{"solution":{"call_timeout_ms":20000}}}`,
		"evaluate.py": `from tether_sdk.evaluator import SolutionRunner, result
result.accept(100, n=SolutionRunner().call("flood"))
`,
		"solution.py": `def flood():
    for _ in range(20000):
        print("x" * 200, flush=True)
    return 1
`,
	})
	const max = 256 << 10
	res, h, evs, text := traceRun(t, dir, filepath.Join(dir, "solution.py"), max)
	if res.Status != judge.Accepted {
		t.Fatalf("%v %s", res.Status, res.Details)
	}
	end := evs[len(evs)-1]
	if !end.Capped || end.Unrecorded["line"] == 0 || end.Unrecorded["drop"] == 0 || end.Max != max || res.Logs.Dropped == 0 {
		t.Fatalf("end %+v", end)
	}
	if head := strings.Index(text, `"ev":"verdict"`); head > max || head < max-8<<10 {
		t.Fatalf("%d bytes before the verdict for a cap of %d", head, max)
	}
	if evs[len(evs)-2].Ev != KindVerdict || h.Problem != "flood" {
		t.Fatalf("the verdict is not the last event before the end")
	}
	if recorded := count(evs, func(e *Event) bool { return e.Ev == KindLine && e.Side == "solution" }); recorded+int(end.Unrecorded["line"]) < 20000 {
		t.Fatalf("%d lines recorded and %d counted, want the 20,000 the solution wrote", recorded, end.Unrecorded["line"])
	}
	if !strings.Contains(string(mustStats(h, evs)), `"capped":true`) {
		t.Error("stats of a capped trace do not say so")
	}
}

func mustStats(h Header, evs []*Event) []byte {
	b, _ := jsonMarshal(Compute(h, evs))
	return b
}

var jsonMarshal = func(v any) ([]byte, error) { return json.Marshal(v) }

// A C++ submission: the trace records its compile step before any process
// starts (language, the compiler's time and memory, not cached, ok), and
// trace stats reports it; a submission that does not compile has a
// compile event saying CompileError with the compiler's first error.
func TestTraceOfACompile(t *testing.T) {
	testenv.Python3(t)
	testenv.Toolchain(t, "g++")
	res, h, evs, _ := traceRun(t, "../examples/aplusb", "../examples/aplusb/solution.cpp", 0)
	if res.Status != judge.Accepted || res.Compile == nil {
		t.Fatalf("%v %s, compile %+v", res.Status, res.Details, res.Compile)
	}
	wantComplete(t, res, h, evs)
	compiles := filterKind(evs, KindCompile)
	if len(compiles) != 1 || evs[0] != compiles[0] {
		t.Fatalf("compile events %+v; the first event is %+v", compiles, evs[0])
	}
	c := compiles[0]
	if c.Compile.Language != "cpp" || c.Compile.Outcome != "ok" || c.Compile.Cached || c.Compile.Stats != *res.Compile ||
		c.Compile.TimeMs <= 0 || c.Us < c.Compile.TimeMs*1000 || c.Us > c.T {
		t.Errorf("compile event %+v: %+v; the result's compile %+v", c, c.Compile, res.Compile)
	}
	if st := Compute(h, evs); st.Compile == nil || st.Compile.Language != "cpp" || st.Compile.Us != c.Us {
		t.Errorf("stats' compile %+v", st.Compile)
	}

	dir := writeProblem(t, map[string]string{"broken.cpp": "int main() { return missing_name; }\n"})
	res, _, evs, _ = traceRun(t, "../examples/aplusb", filepath.Join(dir, "broken.cpp"), 0)
	if res.Status != judge.CompileError {
		t.Fatalf("%v %s", res.Status, res.Details)
	}
	compiles = filterKind(evs, KindCompile)
	if len(compiles) != 1 || compiles[0].Compile.Outcome != "CompileError" || compiles[0].Compile.Reason == "" ||
		!strings.Contains(compiles[0].Compile.Message, "missing_name") {
		t.Fatalf("compile events of a broken source %+v", compiles)
	}
	if n := len(filterKind(evs, KindStart)); n != 0 {
		t.Errorf("%d processes started for a submission that did not compile", n)
	}
}
