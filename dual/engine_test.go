package dual

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/codec"
)

const (
	ready   = `{"type":"ready"}`
	callA   = `{"type":"call","id":"a","fn":"f","args":[1]}`
	resultA = `{"type":"result","id":"a","value":2}`
)

func TestCallAndResultForwardOriginalBytes(t *testing.T) {
	h := liveHarness(t, Config{})
	h.expect(h.eval("  "+callA+"\r"), "send solution "+callA)
	h.expect(h.sol(resultA), "send evaluator "+resultA)
	if c, _ := h.e.InFlight(); c != 0 {
		t.Fatalf("in flight after result: %d", c)
	}
	h.expect(h.sol(resultA), "warn solution unknown-id")
	st := h.e.Stats()
	if st.Calls != 1 || st.Completed != 1 || st.Dropped[DropUnknownID] != 1 {
		t.Fatalf("stats %+v", st)
	}
	h.eval(`{"type":"call","id":"b","fn":"f","args":[]}`)
	h.expect(h.sol(`{"type":"error","id":"b","code":"Exception","message":"boom","trace":"T"}`),
		`send evaluator {"type":"error","id":"b","code":"Exception","message":"boom","trace":"T"}`)
}

func TestSolutionFramesBeforeReady(t *testing.T) {
	h := newHarness(t, Config{})
	h.expect(h.sol(`{"type":"capability","id":"c","name":"n","args":[]}`), "warn solution before-ready")
	h.expect(h.sol(`{"type":"log","stream":"stdout","data":"x"}`), "warn solution before-ready")
	h.expect(h.eval(callA), "") // held until ready
	h.expect(h.sol(ready), "solution-ready | send solution "+callA)
	h.expect(h.sol(resultA), "send evaluator "+resultA)
	if h.e.Stats().Dropped[DropBeforeReady] != 2 {
		t.Fatalf("stats %+v", h.e.Stats())
	}
	acts := h.sol(ready) // a second ready is not a known solution frame any more
	h.expect(acts, "warn solution type")
}

func TestResponseMustComeFromTheSideThatOwesIt(t *testing.T) {
	h := liveHarness(t, Config{})
	h.eval(callA)
	h.expect(h.eval(resultA), "warn evaluator wrong-side") // the evaluator cannot answer its own call
	capC := `{"type":"capability","id":"c","name":"llm","args":[]}`
	h.expect(h.sol(capC), "send evaluator "+capC)
	h.expect(h.sol(`{"type":"result","id":"c","value":1}`), "warn solution wrong-side")
	h.expect(h.eval(`{"type":"result","id":"c","value":1}`), `send solution {"type":"result","id":"c","value":1}`)
	// the same id may be in flight in both directions
	h.sol(`{"type":"capability","id":"a","name":"llm","args":[]}`)
	h.expect(h.sol(resultA), "send evaluator "+resultA)
	h.expect(h.eval(`{"type":"error","id":"a","code":"X","message":"m"}`), `send solution {"type":"error","id":"a","code":"X","message":"m"}`)
}

func TestResponsesWithoutStringID(t *testing.T) {
	h := liveHarness(t, Config{})
	h.eval(callA)
	for _, l := range []string{`{"type":"result","value":1}`, `{"type":"result","id":1,"value":1}`,
		`{"type":"error","id":null}`, `{"type":"result","id":"","value":1}`} {
		h.expect(h.sol(l), "warn solution no-id")
	}
	for _, l := range []string{`{"type":"call","fn":"f","args":[]}`, `{"type":"call","id":5,"fn":"f"}`, `{"type":"call","id":"","fn":"f"}`} {
		h.expect(h.eval(l), "warn evaluator no-id")
	}
	h.expect(h.sol(`{"type":"capability","name":"n"}`), "warn solution no-id")
}

func TestDuplicateCallIDRejected(t *testing.T) {
	h := liveHarness(t, Config{})
	h.eval(callA)
	h.expect(h.eval(callA), "send evaluator "+errFrame("a", "Rejected", "duplicate call id"))
	h.expect(h.sol(resultA), "send evaluator "+resultA)
	h.expect(h.eval(callA), "send solution "+callA) // free again once answered
	capC := `{"type":"capability","id":"c","name":"n","args":[]}`
	h.sol(capC)
	h.expect(h.sol(capC), "send solution "+errFrame("c", "Rejected", "duplicate capability id"))
	if h.e.Stats().Rejected != 2 {
		t.Fatalf("stats %+v", h.e.Stats())
	}
}

func bigCall(id string, size int) string {
	head := `{"type":"call","id":"` + id + `","fn":"f","args":["`
	return head + strings.Repeat("x", size-len(head)-3) + `"]}`
}

func TestOversizeFrames(t *testing.T) {
	h := liveHarness(t, Config{})
	over := bigCall("big", defaultMaxFrame+1)
	h.expect(h.eval(over), "send evaluator "+errFrame("big", "Rejected", "frame size 1048577 > 1048576"))
	if c, _ := h.e.InFlight(); c != 0 {
		t.Fatal("oversize call entered the table")
	}
	h.expect(h.eval(bigCall("fits", defaultMaxFrame)), "send solution "+bigCall("fits", defaultMaxFrame))

	capHead := `{"type":"capability","id":"k","name":"n","args":["`
	capLine := capHead + strings.Repeat("y", defaultMaxFrame) + `"]}`
	h.expect(h.sol(capLine), "send solution "+errFrame("k", "Rejected", fmt.Sprintf("frame size %d > 1048576", len(capLine))))

	resHead := `{"type":"result","id":"fits","value":"`
	res := resHead + strings.Repeat("z", defaultMaxFrame) + `"}`
	h.expect(h.sol(res), "send evaluator "+errFrame("fits", "Rejected", fmt.Sprintf("frame size %d > 1048576", len(res))))
	h.expect(h.sol(`{"type":"result","id":"fits","value":1}`), "warn solution unknown-id")
	h.expect(h.sol(`{"type":"shutdown","pad":"`+strings.Repeat("s", defaultMaxFrame)+`"}`), "warn solution oversize")
}

func TestLineTooLong(t *testing.T) {
	h := liveHarness(t, Config{})
	acts := snapshot(h.e.LineTooLong(Evaluator, 5<<20, []byte(`{"type":"call","id":"h","fn":"f","args":["xxxx`), h.now, nil))
	h.expect(acts, "send evaluator "+errFrame("h", "Rejected", "frame size 5242880 > 1048576"))
	h.eval(callA)
	acts = snapshot(h.e.LineTooLong(Solution, 5<<20, []byte(`{"type":"result","id":"a","value":"xxxx`), h.now, nil))
	h.expect(acts, "send evaluator "+errFrame("a", "Rejected", "frame size 5242880 > 1048576"))
	acts = snapshot(h.e.LineTooLong(Evaluator, 5<<20, []byte(`just a very long text line`), h.now, nil))
	h.expect(acts, "warn evaluator line-too-long")
	acts = snapshot(h.e.LineTooLong(Solution, 5<<20, []byte(`{"args":["xxxx`), h.now, nil))
	h.expect(acts, "warn solution line-too-long")
}

func TestDeadlines(t *testing.T) {
	h := liveHarness(t, Config{CallTimeout: 5 * time.Second, OnCallTimeout: Continue})
	h.eval(`{"type":"call","id":"short","fn":"f","args":[],"timeout_ms":100}`)
	h.eval(`{"type":"call","id":"dflt","fn":"f","args":[],"timeout_ms":0}`)
	if d, ok := h.e.NextDeadline(); !ok || !d.Equal(t0.Add(100*time.Millisecond)) {
		t.Fatalf("next deadline %v %v", d, ok)
	}
	h.expect(h.advance(99*time.Millisecond), "")
	h.expect(h.advance(time.Millisecond), "send evaluator "+errFrame("short", "CallTimeout", "call timeout"))
	h.expect(h.sol(`{"type":"result","id":"short","value":1}`), "warn solution unknown-id") // late
	h.expect(h.advance(4899*time.Millisecond), "")
	h.expect(h.advance(time.Millisecond), "send evaluator "+errFrame("dflt", "CallTimeout", "call timeout"))
	if _, ok := h.e.NextDeadline(); ok {
		t.Fatal("deadline left after all expired")
	}
	if st := h.e.Stats(); st.CallTimeouts != 2 || st.Restarts != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestCapabilityDeadlinesFromCapReg(t *testing.T) {
	h := liveHarness(t, Config{CallTimeout: 5 * time.Second})
	h.expect(h.eval(`{"type":"cap_reg","name":"llm","timeout_ms":1000}`), "") // never forwarded
	h.eval(`{"type":"cap_reg","name":"llm","timeout_ms":2000}`)               // latest wins
	h.sol(`{"type":"capability","id":"c1","name":"llm","args":[]}`)
	// The solution cannot set its own deadline, longer or shorter.
	h.expect(h.advance(100*time.Millisecond), "")
	h.sol(`{"type":"capability","id":"c2","name":"llm","args":[],"timeout_ms":99999999999}`)
	h.expect(h.advance(100*time.Millisecond), "")
	h.sol(`{"type":"capability","id":"c2b","name":"llm","args":[],"timeout_ms":300}`)
	h.expect(h.advance(1799*time.Millisecond), "")
	h.expect(h.advance(time.Millisecond), "send solution "+errFrame("c1", "CallTimeout", "call timeout"))
	h.expect(h.advance(100*time.Millisecond), "send solution "+errFrame("c2", "CallTimeout", "call timeout"))
	h.expect(h.advance(100*time.Millisecond), "send solution "+errFrame("c2b", "CallTimeout", "call timeout"))
	h.eval(`{"type":"cap_reg","name":"llm","timeout_ms":-1}`) // deletes: back to the default
	h.sol(`{"type":"capability","id":"c3","name":"llm","args":[]}`)
	h.expect(h.advance(4999*time.Millisecond), "")
	h.expect(h.advance(time.Millisecond), "send solution "+errFrame("c3", "CallTimeout", "call timeout"))
	h.eval(`{"type":"cap_reg","name":"llm","timeout_ms":700}`)
	h.eval(`{"type":"cap_reg","name":"llm"}`) // missing also deletes
	h.sol(`{"type":"capability","id":"c4","name":"llm","args":[]}`)
	h.expect(h.advance(4999*time.Millisecond), "")
	h.expect(h.advance(time.Millisecond), "send solution "+errFrame("c4", "CallTimeout", "call timeout"))
	if st := h.e.Stats(); st.CapabilityTimeouts != 5 || st.Restarts != 0 || st.CallTimeouts != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestRestartAfterCallTimeout(t *testing.T) {
	h := liveHarness(t, Config{CallTimeout: time.Second})
	h.eval(`{"type":"call","id":"slow","fn":"f","args":[],"timeout_ms":100}`)
	h.eval(`{"type":"call","id":"other","fn":"f","args":[]}`)
	h.sol(`{"type":"capability","id":"cap","name":"n","args":[]}`)
	h.expect(h.advance(100*time.Millisecond),
		"send evaluator "+errFrame("slow", "CallTimeout", "call timeout")+
			" | send evaluator "+errFrame("other", "SystemError", "solution restarted after timeout")+
			" | restart-solution")
	if c, k := h.e.InFlight(); c != 0 || k != 0 {
		t.Fatalf("in flight after restart: %d %d", c, k)
	}
	h.expect(h.sol(`{"type":"result","id":"other","value":1}`), "warn solution old-solution")
	h.expect(h.eval(`{"type":"result","id":"cap","value":1}`), "warn evaluator unknown-id")
	next := `{"type":"call","id":"next","fn":"f","args":[]}`
	h.expect(h.eval(next), "") // held for the new solution
	h.e.SolutionStarted(h.now, nil)
	h.expect(h.sol(`{"type":"result","id":"next","value":1}`), "warn solution before-ready")
	h.expect(h.sol(ready), "solution-ready | send solution "+next)
	h.expect(h.sol(`{"type":"result","id":"next","value":1}`), `send evaluator {"type":"result","id":"next","value":1}`)
	if st := h.e.Stats(); st.Restarts != 1 || st.CallTimeouts != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestContinuePolicyKeepsSolution(t *testing.T) {
	h := liveHarness(t, Config{CallTimeout: time.Second, OnCallTimeout: Continue})
	h.eval(callA)
	h.eval(`{"type":"call","id":"b","fn":"f","args":[],"timeout_ms":5000}`)
	h.expect(h.advance(time.Second), "send evaluator "+errFrame("a", "CallTimeout", "call timeout"))
	h.expect(h.sol(`{"type":"result","id":"b","value":1}`), `send evaluator {"type":"result","id":"b","value":1}`)
}

func TestSolutionGone(t *testing.T) {
	for _, policy := range []Policy{Restart, Continue} {
		t.Run(policy.String(), func(t *testing.T) {
			h := liveHarness(t, Config{OnCallTimeout: policy})
			h.eval(callA)
			h.sol(`{"type":"capability","id":"c","name":"n","args":[]}`)
			acts := snapshot(h.e.Gone(Solution, "exit status 3", h.now, nil))
			h.expect(acts, "send evaluator "+errFrame("a", "SystemError", "solution is gone: exit status 3"))
			h.expect(snapshot(h.e.Gone(Solution, "again", h.now, nil)), "")
			h.expect(h.eval(`{"type":"result","id":"c","value":1}`), "warn evaluator unknown-id")
			next := `{"type":"call","id":"n","fn":"f","args":[]}`
			if policy == Restart {
				h.expect(h.eval(next), "restart-solution")
				h.e.SolutionStarted(h.now, nil)
				h.expect(h.sol(ready), "solution-ready | send solution "+next)
			} else {
				h.expect(h.eval(next), "send evaluator "+errFrame("n", "SystemError", "solution is gone: exit status 3"))
			}
		})
	}
}

func TestSolutionNeverReady(t *testing.T) {
	h := newHarness(t, Config{ReadyTimeout: 2 * time.Second})
	h.eval(callA)
	h.expect(h.advance(1999*time.Millisecond), "")
	acts := h.advance(time.Millisecond)
	if len(acts) != 2 || acts[1].Kind != actFatal || !errors.Is(acts[1].Err, ErrSolutionNotReady) {
		t.Fatalf("got %s", describe(acts))
	}
	h.expect(acts[:1], "send evaluator "+errFrame("a", "SystemError", "solution is gone: solution host did not start"))

	h = newHarness(t, Config{})
	acts = snapshot(h.e.Gone(Solution, "exit status 1", h.now, nil))
	if len(acts) != 1 || !errors.Is(acts[0].Err, ErrSolutionNotReady) || !strings.Contains(acts[0].Err.Error(), "exit status 1") {
		t.Fatalf("gone before ready: %s", describe(acts))
	}
}

func TestEvaluatorGone(t *testing.T) {
	h := liveHarness(t, Config{})
	h.sol(`{"type":"capability","id":"c","name":"n","args":[]}`)
	h.expect(snapshot(h.e.Gone(Evaluator, "exit status 0", h.now, nil)),
		"send solution "+errFrame("c", "SystemError", "evaluator is gone: exit status 0"))
	if _, k := h.e.InFlight(); k != 0 {
		t.Fatal("capability kept after evaluator gone")
	}
	h.expect(h.eval(callA), "warn evaluator evaluator-gone")
	h.expect(h.sol(`{"type":"capability","id":"d","name":"n","args":[]}`), "warn solution evaluator-gone")
}

func TestFrameTypesBySide(t *testing.T) {
	h := liveHarness(t, Config{})
	cases := []struct {
		from       Side
		line, want string
	}{
		{Evaluator, `{"type":"log","stream":"stdout","data":"x"}`, "warn evaluator evaluator-log"},
		{Evaluator, `{"type":"shutdown"}`, "warn evaluator type"},
		{Evaluator, `{"type":"capability","id":"x","name":"n"}`, "warn evaluator type"},
		{Evaluator, `{"type":"ready"}`, "warn evaluator type"},
		{Evaluator, `{"type":"bogus"}`, "warn evaluator type"},
		{Evaluator, `{"type":"cap_reg"}`, "warn evaluator malformed"},
		{Evaluator, `{"type":"cap_reg","name":"n","timeout_ms":5}`, ""},
		{Solution, `{"type":"call","id":"x","fn":"f"}`, "warn solution type"},
		{Solution, `{"type":"cap_reg","name":"n"}`, "warn solution type"},
		{Solution, `{"type":"bogus"}`, "warn solution type"},
		{Solution, `{"type":"shutdown"}`, `send evaluator {"type":"shutdown"}`},
		{Solution, `print("hi")`, "warn solution solution-text"},
		{Solution, `{"type":"result","id":"x"`, "warn solution solution-text"},
		{Evaluator, `{"type":"result","id":"x"`, `output {"type":"result","id":"x"`},
		{Evaluator, "  some output \t", "output   some output \t"}, // as printed
		{Evaluator, "\tindented\r\n", "output \tindented"},
	}
	for _, c := range cases {
		acts := snapshot(h.e.Line(c.from, []byte(c.line), h.now, nil))
		if got := describe(acts); got != c.want {
			t.Errorf("%v %s: got %q want %q", c.from, c.line, got, c.want)
		}
	}
}

func TestSignedResultMarker(t *testing.T) {
	h := liveHarness(t, Config{ResultNonce: testNonce})
	h.expect(h.eval("before"), "output before")
	// The signed marker is told as the plain one: the nonce never leaves the run.
	h.expect(h.eval(testSignedMarker), "result-line ---RESULT---")
	h.expect(h.eval(callA), "send solution "+callA) // frames still routed
	h.expect(h.eval("   "), "result-line    ")
	h.expect(h.eval(`{"status":"Accepted","score":10000,"details":{}}`),
		`result-line {"status":"Accepted","score":10000,"details":{}} | result {"status":"Accepted","score":10000,"details":{}}`)
	h.expect(h.eval("after"), "output after")
	h.expect(h.eval("  "+testSignedMarker+" "), "result-line ---RESULT---")
	h.expect(h.eval("second"), "output second") // once per run
	h.expect(h.e.Gone(Evaluator, "exit status 0", h.now, nil), "")
}

// A signed marker with another nonce, or none, is text: the solution
// never sees the nonce, so text it makes the evaluator print cannot sign.
func TestSignedMarkerNeedsTheNonce(t *testing.T) {
	h := liveHarness(t, Config{ResultNonce: testNonce})
	for _, line := range []string{codec.SignedResultMarker("ffffffffffffffffffffffffffffffff"), codec.ResultMarker + testNonce, testSignedMarker + " x"} {
		h.expect(h.eval(line), "output "+strings.TrimSpace(line))
	}
	// Without a nonce configured, no line is a signed marker.
	h = liveHarness(t, Config{})
	h.expect(h.eval(testSignedMarker), "output "+testSignedMarker)
}

// A plain marker's payload is held until the evaluator is gone; each
// marker replaces it, text after it cancels it, so the evaluator's own
// result, printed last, is the one that counts.
func TestPlainResultMarkerLastOneWins(t *testing.T) {
	forged := `{"status":"Accepted","score":10000}`
	own := `{"status":"WrongAnswer","score":0}`
	h := liveHarness(t, Config{ResultNonce: testNonce})
	h.expect(h.eval("got x"), "output got x")
	h.expect(h.eval("---RESULT---"), "result-line ---RESULT---")
	h.expect(h.eval(forged), "result-line "+forged) // held, not the result yet
	h.expect(h.eval(callA), "send solution "+callA)
	h.expect(h.eval(" ---RESULT---"), "result-line  ---RESULT---") // as printed
	h.expect(h.eval(""), "result-line ")
	h.expect(h.eval(own), "result-line "+own)
	h.expect(h.eval(""), "output ") // blank lines after it keep it
	h.expect(h.e.Gone(Evaluator, "exit status 0", h.now, nil), "result plain "+own)

	h = liveHarness(t, Config{})
	h.eval("---RESULT---")
	h.eval(forged)
	h.expect(h.eval("checking the answer"), "output checking the answer") // output after it cancels it
	h.expect(h.e.Gone(Evaluator, "exit status 0", h.now, nil), "")

	h = liveHarness(t, Config{})
	h.eval("---RESULT---")
	h.eval(forged)
	h.eval("---RESULT---") // a marker without a payload cancels it too
	h.expect(h.e.Gone(Evaluator, "exit status 0", h.now, nil), "")

	// The signed marker's result wins over a plain one, held or not.
	h = liveHarness(t, Config{ResultNonce: testNonce})
	h.eval("---RESULT---")
	h.eval(forged)
	h.eval(testSignedMarker)
	h.expect(h.eval(own), "result-line "+own+" | result "+own)
	h.expect(h.e.Gone(Evaluator, "exit status 0", h.now, nil), "")
}

// The budgets count whole frames: n is the length of an empty-data frame,
// so each limit below is some frames plus some bytes of data.
func TestLogBudgets(t *testing.T) {
	logLine := func(data string) string { return `{"type":"log","stream":"stderr","data":"` + data + `"}` }
	n := len(logLine(""))
	cfg := Config{MaxLogPerCall: 2*n + 10, MaxLogPerRun: 5*n + 28}
	h := liveHarness(t, cfg)
	h.expect(h.sol(logLine("12345")), "send evaluator "+logLine("12345")+" | log stderr 12345") // no call: run bucket only
	h.expect(h.sol(logLine("1234567890ab")), "send evaluator "+logLine("1234567890ab")+" | log stderr 1234567890ab")
	h.eval(callA)
	h.expect(h.sol(logLine("123456")), "send evaluator "+logLine("123456")+" | log stderr 123456")
	h.expect(h.sol(logLine("12345")), "warn solution log-budget") // 2n+6+5 > 2n+10 for call a
	h.expect(h.sol(logLine("1\u0061")), "send evaluator "+logLine("1\u0061")+" | log stderr 1a")
	h.sol(resultA)
	h.expect(h.sol(logLine("1234")), "warn solution log-budget") // run: 4n+25 kept, n+4 more > 5n+28
	h.expect(h.sol(logLine("")), "send evaluator "+logLine("")+" | log stderr ")
	h.expect(h.sol(`{"type":"log","stream":"stdout"}`), "warn solution malformed")
	st := h.e.Stats()
	if st.LogKeptFrames != 5 || st.LogKeptBytes != int64(5*n+5+12+6+2) || st.LogDroppedFrames != 2 || st.LogDroppedBytes != int64(2*n+9) {
		t.Fatalf("stats %+v", st)
	}
}

// A log frame costs its whole line and one frame: a long stream name, an
// extra member or a flood of empty frames is not free. The stream is one of
// a fixed set, and the evaluator gets only type, stream and data.
func TestLogFramesCountWhole(t *testing.T) {
	kept := func(stream, data string) string {
		return `send evaluator {"type":"log","stream":"` + stream + `","data":"` + data + `"} | log ` + stream + " " + data
	}
	for _, tc := range []struct {
		name  string
		cfg   Config
		lines []string
		want  []string
	}{
		{"long stream name", Config{MaxLogPerRun: 100},
			[]string{`{"type":"log","stream":"` + strings.Repeat("s", 100) + `","data":""}`, `{"type":"log","stream":"stdout","data":"x"}`},
			[]string{"warn solution log-budget", kept("stdout", "x")}},
		{"extra member", Config{MaxLogPerRun: 100},
			[]string{`{"type":"log","stream":"stdout","data":"","pad":"` + strings.Repeat("p", 100) + `"}`},
			[]string{"warn solution log-budget"}},
		{"extra member within budget is not forwarded", Config{},
			[]string{`{"pad":[1,{"type":"x"}],"type":"log","data":"d\n","stream":"stderr","id":"i"}`},
			[]string{`send evaluator {"type":"log","stream":"stderr","data":"d\n"} | log stderr d` + "\n"}},
		{"other stream names", Config{},
			[]string{`{"type":"log","stream":"debug","data":"a"}`, `{"type":"log","data":"b"}`, `{"type":"log","stream":7,"data":"c"}`},
			[]string{kept("other", "a"), kept("other", "b"), kept("other", "c")}},
		{"frames per run", Config{MaxLogFramesPerRun: 2},
			[]string{`{"type":"log","stream":"stdout","data":""}`, `{"type":"log","stream":"stdout","data":""}`, `{"type":"log","stream":"stdout","data":""}`},
			[]string{kept("stdout", ""), kept("stdout", ""), "warn solution log-budget"}},
		{"frames per call", Config{MaxLogFramesPerCall: 1},
			[]string{callA, `{"type":"log","stream":"stdout","data":""}`, `{"type":"log","stream":"stdout","data":""}`, resultA, `{"type":"log","stream":"stdout","data":""}`},
			[]string{"send solution " + callA, kept("stdout", ""), "warn solution log-budget", "send evaluator " + resultA, kept("stdout", "")}},
		{"shutdown once, rebuilt", Config{},
			[]string{`{"type":"shutdown","pad":"` + strings.Repeat("p", 100) + `"}`, `{"type":"shutdown"}`},
			[]string{`send evaluator {"type":"shutdown"}`, "warn solution repeated"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := liveHarness(t, tc.cfg)
			for i, l := range tc.lines {
				if l == callA {
					h.expect(h.eval(l), tc.want[i])
					continue
				}
				h.expect(h.sol(l), tc.want[i])
			}
		})
	}
}

// With several calls in flight, a log counts against each of them: no call
// sees more than its budget while it runs.
func TestLogBudgetOverlappingCalls(t *testing.T) {
	logLine := func(data string) string { return `{"type":"log","stream":"stdout","data":"` + data + `"}` }
	n := len(logLine(""))
	h := liveHarness(t, Config{MaxLogPerCall: 2*n + 10, MaxLogPerRun: 1000})
	kept := func(data string) string { return "send evaluator " + logLine(data) + " | log stdout " + data }
	h.eval(callA)
	h.expect(h.sol(logLine("1234")), kept("1234")) // a: n+4
	h.eval(`{"type":"call","id":"b","fn":"f","args":[]}`)
	h.expect(h.sol(logLine("123456")), kept("123456"))       // a: 2n+10, b: n+6
	h.expect(h.sol(logLine("")), "warn solution log-budget") // a would pass 2n+10
	h.sol(resultA)
	h.expect(h.sol(logLine("1234")), kept("1234"))           // b: 2n+10
	h.expect(h.sol(logLine("")), "warn solution log-budget") // b would pass 2n+10
	h.sol(`{"type":"result","id":"b","value":null}`)
	h.expect(h.sol(logLine("1234567890")), kept("1234567890")) // no call in flight: run budget only
}

// A Python peer writes NaN and Infinity unless told not to. Such frames are
// routed like any other, so the SDK they reach can answer Rejected instead
// of the call waiting for its deadline.
func TestNonFiniteTokensAreRouted(t *testing.T) {
	h := liveHarness(t, Config{})
	h.eval(callA)
	nan := `{"type":"result","id":"a","value":NaN}`
	h.expect(h.sol(nan), "send evaluator "+nan)
	call := `{"type":"call","id":"b","fn":"f","args":[-Infinity]}`
	h.expect(h.eval(call), "send solution "+call)
}

func TestLimits(t *testing.T) {
	h := liveHarness(t, Config{MaxInFlight: 2, MaxIDLen: 4})
	h.eval(`{"type":"call","id":"1","fn":"f"}`)
	h.eval(`{"type":"call","id":"2","fn":"f"}`)
	h.expect(h.eval(`{"type":"call","id":"3","fn":"f"}`), "send evaluator "+errFrame("3", "Rejected", "too many calls in flight"))
	h.expect(h.sol(`{"type":"capability","id":"12345","name":"n"}`), "send solution "+errFrame("12345", "Rejected", "id longer than 4 bytes"))

	h = newHarness(t, Config{MaxQueuedBytes: 60})
	h.expect(h.eval(callA), "")
	h.expect(h.eval(`{"type":"call","id":"b","fn":"f","args":[1]}`), "send evaluator "+errFrame("b", "SystemError", "too many calls queued while the solution starts"))
}

func TestQueuedCallExpiresBeforeReady(t *testing.T) {
	h := newHarness(t, Config{CallTimeout: time.Second})
	h.eval(callA)
	h.expect(h.advance(time.Second), "send evaluator "+errFrame("a", "CallTimeout", "call timeout")) // no restart: never sent
	h.expect(h.sol(ready), "solution-ready")
}

func TestEngineSteadyStateAllocatesNothing(t *testing.T) {
	e := newEngine(Config{})
	e.SolutionStarted(t0, nil)
	out := e.Line(Solution, []byte(ready), t0, nil)
	// An id over one byte: Go's conversion of a one-byte key allocates nothing anyway.
	call := []byte(`{"type":"call","id":"call-0017","fn":"f","args":[1]}`)
	res := []byte(`{"type":"result","id":"call-0017","value":2}`)
	allocs := testing.AllocsPerRun(1000, func() {
		out = e.Line(Evaluator, call, t0, out[:0])
		out = e.Line(Solution, res, t0, out[:0])
	})
	if allocs != 0 {
		t.Fatalf("%v allocs per call+result", allocs)
	}
}

// Frames the solution sends the evaluator on its own are marked Unasked
// (the relay does not count the evaluator's stall on them as its end);
// answers to the evaluator's calls and the engine's own frames are not.
func TestUnaskedSends(t *testing.T) {
	h := liveHarness(t, Config{})
	for _, tc := range []struct {
		from Side
		line string
		want bool
	}{
		{Solution, `{"type":"capability","id":"c","name":"n","args":[]}`, true},
		{Solution, `{"type":"log","stream":"stdout","data":"x"}`, true},
		{Solution, `{"type":"shutdown"}`, true},
		{Evaluator, callA, false},
		{Solution, resultA, false},
		{Evaluator, `{"type":"result","id":"c","value":1}`, false},
	} {
		acts := h.e.Line(tc.from, []byte(tc.line), h.now, nil)
		if len(acts) == 0 || acts[0].Kind != actSend || acts[0].Unasked != tc.want {
			t.Errorf("%s: %s, unasked %v, want a send with unasked %v", tc.line, describe(acts), len(acts) > 0 && acts[0].Unasked, tc.want)
		}
	}
}
