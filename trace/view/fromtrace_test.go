package view

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tether-dev/tether/trace"
)

// parseTrace reads a trace given as its lines.
func parseTrace(t *testing.T, lines ...string) (trace.Header, []*trace.Event) {
	t.Helper()
	h, evs, err := trace.ReadAll(strings.NewReader(strings.Join(lines, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return h, evs
}

// A call with a capability inside it, a call answered with an error, one
// ended by a restart, one refused at the door and one never answered: each
// gets its arguments, answer, outcome, lane and parent.
func TestFromTrace(t *testing.T) {
	h, evs := parseTrace(t,
		`{"trace":1,"tether":"t","problem":"P","submission_id":"s","started":"2026-12-03T08:00:00Z","sandbox":"linux","sides":{},"limits":{"call_timeout_ms":2000}}`,
		`{"t":10,"ev":"line","side":"evaluator","kind":"frame","len":50,"frame":{"type":"call","id":"a","fn":"solve","args":[1,2]}}`,
		`{"t":10,"ev":"call","side":"evaluator","id":"a","fn":"solve"}`,
		`{"t":20,"ev":"line","side":"solution","kind":"frame","len":50,"frame":{"type":"capability","id":"k","name":"lookup","args":["x"]}}`,
		`{"t":20,"ev":"call","side":"solution","id":"k","fn":"lookup"}`,
		`{"t":25,"ev":"line","side":"evaluator","kind":"frame","len":40,"frame":{"type":"result","id":"k","value":"y"}}`,
		`{"t":25,"ev":"answer","side":"solution","id":"k","fn":"lookup","outcome":"result","us":5}`,
		`{"t":27,"ev":"line","side":"solution","kind":"frame","len":40,"frame":{"type":"log","stream":"stdout","data":"hi"}}`,
		`{"t":30,"ev":"line","side":"solution","kind":"frame","len":40,"frame":{"type":"result","id":"a","value":3}}`,
		`{"t":30,"ev":"answer","side":"evaluator","id":"a","fn":"solve","outcome":"result","us":20}`,
		`{"t":40,"ev":"line","side":"evaluator","kind":"frame","len":50,"frame":{"type":"call","id":"b","fn":"solve","args":[]}}`,
		`{"t":40,"ev":"call","side":"evaluator","id":"b","fn":"solve"}`,
		`{"t":45,"ev":"line","side":"solution","kind":"frame","len":60,"frame":{"type":"error","id":"b","code":"Exception","message":"boom"}}`,
		`{"t":45,"ev":"answer","side":"evaluator","id":"b","fn":"solve","outcome":"error","us":5}`,
		`{"t":50,"ev":"call","side":"evaluator","id":"c","fn":"slow"}`,
		`{"t":60,"ev":"call","side":"evaluator","id":"d","fn":"slow"}`,
		`{"t":2050,"ev":"answer","side":"evaluator","id":"c","fn":"slow","outcome":"timeout","us":2000}`,
		`{"t":2050,"ev":"answer","side":"evaluator","id":"d","fn":"slow","outcome":"failed","us":1990}`,
		`{"t":2060,"ev":"restart","n":1}`,
		`{"t":2070,"ev":"answer","side":"evaluator","id":"c","fn":"slow","outcome":"refused","us":0}`,
		`{"t":2080,"ev":"call","side":"evaluator","id":"e","fn":"never"}`,
		`{"t":2090,"ev":"line","side":"evaluator","kind":"text","len":6,"text":"score"}`,
		`{"t":2100,"ev":"lm","lm":{"model":"m","backend":"echo","depth":1,"prompt_bytes":5,"completion_bytes":7,"input_tokens":2,"output_tokens":3,"latency_us":40,"budget":{"calls":1,"tokens":5}}}`,
		`{"t":2200,"ev":"future-kind"}`,
		`{"t":2300,"ev":"verdict","result":{"status":"WrongAnswer","score":5000,"details":{"message":"wrong on test 2"},"time_ms":3,"memory_kb":100}}`,
		`{"t":2301,"ev":"end","events":20,"capped":true,"max":1000}`,
	)
	m := FromTrace(h, evs)
	type want struct {
		id, fn, side, outcome string
		start, end            int64
		parent                int
		args, answer          string
	}
	wants := []want{
		{"a", "solve", SideSolution, OutcomeOK, 10, 30, -1, "[1,2]", "3"},
		{"k", "lookup", SideEvaluator, OutcomeOK, 20, 25, 0, `["x"]`, `"y"`},
		{"b", "solve", SideSolution, OutcomeError, 40, 45, -1, "[]", `{"code":"Exception","message":"boom"}`},
		{"c", "slow", SideSolution, OutcomeTimeout, 50, 2050, -1, "", ""},
		{"d", "slow", SideSolution, OutcomeRestart, 60, 2050, -1, "", ""},
		{"c", "slow", SideSolution, OutcomeRejected, 2070, 2070, -1, "", ""},
		{"e", "never", SideSolution, OutcomePending, 2080, -1, -1, "", ""},
	}
	if len(m.Calls) != len(wants) {
		t.Fatalf("%d calls, want %d: %+v", len(m.Calls), len(wants), m.Calls)
	}
	for i, w := range wants {
		c := m.Calls[i]
		got := want{c.ID, c.Fn, c.Side, c.Outcome, c.StartUs, c.EndUs, c.Parent, c.Args, c.Answer}
		if got != w {
			t.Errorf("call %d = %+v, want %+v", i, got, w)
		}
	}
	if len(m.Restarts) != 1 || m.Restarts[0] != 2060 {
		t.Errorf("restarts = %v", m.Restarts)
	}
	if len(m.Logs) != 2 || m.Logs[0].Side != SideSolution || m.Logs[0].Stream != "stdout" || m.Logs[0].Text != "hi" ||
		m.Logs[1].Side != SideEvaluator || m.Logs[1].Text != "score" {
		t.Errorf("logs = %+v, want the solution's log frame and the evaluator's output line, with their text", m.Logs)
	}
	if len(m.LM) != 1 || m.LM[0].StartUs != 2060 || m.LM[0].CompletionTokens != 3 {
		t.Errorf("lm = %+v", m.LM)
	}
	hd := m.Header
	if hd.Verdict != "WrongAnswer" || hd.Score == nil || *hd.Score != 5000 || hd.Message != "wrong on test 2" ||
		hd.Problem != "P" || len(hd.Limits) != 1 || hd.Limits[0] != (Limit{"call_timeout_ms", "2000"}) {
		t.Errorf("header = %+v", hd)
	}
	notes := strings.Join(m.Notes, "\n")
	if !strings.Contains(notes, "cap of 1000 bytes") || !strings.Contains(notes, `"future-kind"`) {
		t.Errorf("notes = %q, want the cap and the unknown kind", notes)
	}
	if err := Render(&strings.Builder{}, m); err != nil {
		t.Errorf("the page of this trace does not render: %v", err)
	}
}

// The compile step, each process from its start to its exit (the
// solution's by number, across a restart), and the evaluator's output as
// written, indentation and result marker included.
func TestFromTraceProcessesAndCompile(t *testing.T) {
	h, evs := parseTrace(t,
		`{"trace":3,"tether":"t","started":"2026-12-03T08:00:00Z","sides":{}}`,
		`{"t":500,"ev":"compile","us":400,"compile":{"language":"cpp","time_ms":380,"memory_kb":51200,"cached":false,"outcome":"ok"}}`,
		`{"t":1000,"ev":"start","side":"evaluator"}`,
		`{"t":1100,"ev":"start","side":"solution"}`,
		`{"t":1200,"ev":"line","side":"evaluator","kind":"text","len":14,"text":"  checking\tit "}`,
		`{"t":2000,"ev":"exit","side":"solution","exit":{"signal":"SIGKILL","killed_by_judge":true}}`,
		`{"t":2005,"ev":"start","side":"solution","n":1}`,
		`{"t":2010,"ev":"restart","n":1}`,
		`{"t":2900,"ev":"line","side":"evaluator","kind":"marker","len":12,"text":"---RESULT---"}`,
		`{"t":3000,"ev":"exit","side":"solution","n":1,"exit":{"exit_code":1,"killed_by_judge":false}}`,
		`{"t":3100,"ev":"exit","side":"evaluator","exit":{"exit_code":0,"killed_by_judge":false}}`,
		`{"t":3200,"ev":"verdict","result":{"status":"RuntimeError","score":0,"language":"cpp"}}`,
	)
	m := FromTrace(h, evs)
	if c := m.Compile; c == nil || *c != (Compile{Language: "cpp", StartUs: 100, EndUs: 500, TimeMs: 380, MemoryKB: 51200, Outcome: "ok"}) {
		t.Errorf("compile = %+v", c)
	}
	want := []Process{
		{Side: SideEvaluator, StartUs: 1000, EndUs: 3100, Exit: "exit status 0"},
		{Side: SideSolution, StartUs: 1100, EndUs: 2000, Exit: "killed by SIGKILL (the judge)"},
		{Side: SideSolution, N: 1, StartUs: 2005, EndUs: 3000, Exit: "exit status 1", Failed: true},
	}
	if len(m.Processes) != len(want) {
		t.Fatalf("processes = %+v, want %+v", m.Processes, want)
	}
	for i := range want {
		if m.Processes[i] != want[i] {
			t.Errorf("process %d = %+v, want %+v", i, m.Processes[i], want[i])
		}
	}
	if len(m.Logs) != 2 || m.Logs[0].Text != "  checking\tit " || m.Logs[1].Text != "---RESULT---" {
		t.Errorf("output = %+v, want the two lines as written", m.Logs)
	}
	if m.Header.Language != "cpp" || len(m.Notes) != 0 {
		t.Errorf("header %+v, notes %q", m.Header, m.Notes)
	}

	// A trace of an older tether has exits but no starts.
	h, evs = parseTrace(t,
		`{"trace":1,"tether":"t","started":"2026-12-03T08:00:00Z","sides":{}}`,
		`{"t":3100,"ev":"exit","side":"evaluator","exit":{"signal":"SIGSEGV","killed_by_judge":false}}`,
	)
	m = FromTrace(h, evs)
	if len(m.Processes) != 1 || m.Processes[0] != (Process{Side: SideEvaluator, StartUs: -1, EndUs: 3100, Exit: "killed by SIGSEGV", Failed: true}) {
		t.Errorf("processes of an older trace = %+v", m.Processes)
	}
}

// The page keeps the text of so many output lines and log frames, each
// cut to its head on a character, and says how many it left out.
func TestFromTraceBoundsTheText(t *testing.T) {
	lines := []string{`{"trace":3,"tether":"t","started":"2026-12-03T08:00:00Z","sides":{}}`}
	long := strings.Repeat("é", maxShownText) // 2 bytes each
	lines = append(lines, `{"t":1,"ev":"line","side":"solution","kind":"frame","len":9,"frame":{"type":"log","stream":"stderr","data":"`+long+`"}}`)
	for i := 0; i < maxShownLines+10; i++ {
		lines = append(lines, `{"t":2,"ev":"line","side":"evaluator","kind":"text","len":3,"text":"x`+strconv.Itoa(i)+`"}`)
	}
	m := FromTrace(parseTrace(t, lines...))
	if got := m.Logs[0].Text; len(got) > maxShownText+len("…") || !strings.HasSuffix(got, "é…") {
		t.Errorf("a long log frame kept %d bytes ending %q", len(got), got[max(0, len(got)-8):])
	}
	kept := 0
	for _, l := range m.Logs {
		if l.Text != "" {
			kept++
		}
	}
	if len(m.Logs) != maxShownLines+11 || kept != maxShownLines || len(m.Notes) != 1 || !strings.Contains(m.Notes[0], "The text of 11 output lines") {
		t.Errorf("%d logs, %d with text, notes %q", len(m.Logs), kept, m.Notes)
	}
}

// A huge argument is kept as its head, so a page stays small.
func TestFromTraceCutsHugeValues(t *testing.T) {
	big := strings.Repeat("x", 3*maxShownJSON)
	h, evs := parseTrace(t,
		`{"trace":1,"tether":"t","started":"2026-12-03T08:00:00Z","sides":{}}`,
		`{"t":1,"ev":"line","side":"evaluator","kind":"frame","len":50,"frame":{"type":"call","id":"a","fn":"f","args":["`+big+`"]}}`,
		`{"t":1,"ev":"call","side":"evaluator","id":"a","fn":"f"}`,
	)
	m := FromTrace(h, evs)
	if n := len(m.Calls[0].Args); n > maxShownJSON+100 || !strings.Contains(m.Calls[0].Args, "cut") {
		t.Errorf("args kept %d bytes: %.80q", n, m.Calls[0].Args)
	}
}

// syntheticTrace is the text of a trace of n calls, each with its frames,
// an output line of the evaluator's every 50 calls, and both processes.
func syntheticTrace(n int) string {
	var b strings.Builder
	b.WriteString(`{"trace":3,"tether":"t","problem":"P","started":"2026-12-03T08:00:00Z","sides":{}}` + "\n")
	b.WriteString(`{"t":0,"ev":"start","side":"evaluator"}` + "\n" + `{"t":0,"ev":"start","side":"solution"}` + "\n")
	for i := 0; i < n; i++ {
		t := int64(i) * 60
		id := "c" + strconv.Itoa(i)
		if i%50 == 0 {
			b.WriteString(`{"t":` + strconv.Itoa(int(t)) + `,"ev":"line","side":"evaluator","kind":"text","len":12,"text":"test ` + strconv.Itoa(i) + `"}` + "\n")
		}
		b.WriteString(`{"t":` + strconv.Itoa(int(t)) + `,"ev":"line","side":"evaluator","kind":"frame","len":60,"frame":{"type":"call","id":"` + id + `","fn":"solve","args":[` + strconv.Itoa(i) + `,2]}}` + "\n")
		b.WriteString(`{"t":` + strconv.Itoa(int(t)) + `,"ev":"call","side":"evaluator","id":"` + id + `","fn":"solve"}` + "\n")
		b.WriteString(`{"t":` + strconv.Itoa(int(t+40)) + `,"ev":"line","side":"solution","kind":"frame","len":50,"frame":{"type":"result","id":"` + id + `","value":` + strconv.Itoa(i+2) + `}}` + "\n")
		b.WriteString(`{"t":` + strconv.Itoa(int(t+40)) + `,"ev":"answer","side":"evaluator","id":"` + id + `","fn":"solve","outcome":"result","us":40}` + "\n")
	}
	b.WriteString(`{"t":` + strconv.Itoa(n*60) + `,"ev":"exit","side":"solution","exit":{"exit_code":0}}` + "\n")
	b.WriteString(`{"t":` + strconv.Itoa(n*60) + `,"ev":"exit","side":"evaluator","exit":{"exit_code":0}}` + "\n")
	b.WriteString(`{"t":` + strconv.Itoa(n*60) + `,"ev":"verdict","result":{"status":"Accepted","score":10000}}` + "\n")
	return b.String()
}

// BenchmarkTraceToHTML100k is tether trace view's work for a trace of
// 100,000 calls: read the trace, build the page's model, render it.
func BenchmarkTraceToHTML100k(b *testing.B) {
	text := syntheticTrace(100_000)
	b.SetBytes(int64(len(text)))
	var size int
	for b.Loop() {
		h, evs, err := trace.ReadAll(strings.NewReader(text))
		if err != nil {
			b.Fatal(err)
		}
		var out strings.Builder
		if err := Render(&out, FromTrace(h, evs)); err != nil {
			b.Fatal(err)
		}
		size = out.Len()
	}
	b.ReportMetric(float64(size)/(1<<20), "MiB/page")
}
