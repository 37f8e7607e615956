package dual

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// Every way a call or capability ends gives one CallClosed with its outcome
// and the time since it opened, and nothing is reported without ReportCalls.
func TestCallEventsReportEveryOutcome(t *testing.T) {
	h := liveHarness(t, Config{ReportCalls: true, CallTimeout: time.Second, MaxFrame: 200})
	h.expect(h.eval(callA), "call-opened evaluator a f | send solution "+callA)
	h.now = h.now.Add(3 * time.Millisecond)
	h.expect(h.sol(resultA), "call-closed evaluator a f result 3ms | send evaluator "+resultA)

	h.eval(`{"type":"call","id":"b","fn":"g","args":[]}`)
	h.expect(h.sol(errFrame("b", "Exception", "boom")),
		"call-closed evaluator b g error 0s | send evaluator "+errFrame("b", "Exception", "boom"))

	// a duplicate id is refused at the door: no CallOpened, the first stays open
	h.eval(`{"type":"call","id":"c","fn":"h","args":[]}`)
	h.expect(h.eval(`{"type":"call","id":"c","fn":"h","args":[]}`),
		"call-closed evaluator c h refused 0s | send evaluator "+errFrame("c", "Rejected", msgDuplicateCall))
	// an answer over MaxFrame closes the call as rejected
	big := `{"type":"result","id":"c","value":"` + strings.Repeat("x", 300) + `"}`
	acts := h.sol(big)
	if len(acts) != 2 || acts[0].Kind != actCallClosed || acts[0].End != EndRejected || string(acts[0].ID) != "c" {
		t.Fatalf("oversize answer: %s", describe(acts))
	}

	// a capability, then a timeout restarts the solution: the call times
	// out, the other call sent fails, the capability is abandoned
	h.expect(h.sol(`{"type":"capability","id":"k","name":"llm","args":[]}`),
		`call-opened solution k llm | send evaluator {"type":"capability","id":"k","name":"llm","args":[]}`)
	h.eval(`{"type":"call","id":"d","fn":"slow","args":[],"timeout_ms":10}`)
	h.eval(`{"type":"call","id":"e","fn":"f","args":[]}`)
	acts = h.advance(20 * time.Millisecond)
	got := describe(acts)
	for _, want := range []string{"call-closed evaluator d slow timeout 20ms", "call-closed evaluator e f failed 20ms",
		"call-closed solution k llm abandoned 20ms", "restart-solution"} {
		if !strings.Contains(got, want) {
			t.Fatalf("timeout gave %s\nwant it to hold %q", got, want)
		}
	}

	quiet := liveHarness(t, Config{})
	for _, a := range append(quiet.eval(callA), quiet.sol(resultA)...) {
		if a.Kind == actCallOpened || a.Kind == actCallClosed {
			t.Fatalf("call events without ReportCalls: %s", describe([]action{a}))
		}
	}
}

func TestCallEventsWhenTheEvaluatorIsGone(t *testing.T) {
	h := liveHarness(t, Config{ReportCalls: true})
	h.sol(`{"type":"capability","id":"k","name":"llm","args":[]}`)
	acts := snapshot(h.e.Gone(Evaluator, "exit status 1", h.now.Add(time.Second), nil))
	if got := describe(acts); !strings.HasPrefix(got, "call-closed solution k llm failed 1s | send solution ") {
		t.Fatalf("evaluator gone: %s", got)
	}
}

// The relay tells the engine's call events with the time it routed them.
func TestRelayCallEvents(t *testing.T) {
	evEP, ev := newFake()
	solEP, sol := newFake()
	var mu sync.Mutex
	var got []string
	obs := observe(func(e *Event) {
		mu.Lock()
		defer mu.Unlock()
		if e.At.IsZero() {
			t.Errorf("call event without a time: %+v", e)
		}
		got = append(got, describeCall(e))
	}, EventCallOpened, EventCallClosed)
	r := NewRelay(evEP, solEP, RelayConfig{Observer: obs})
	wait := runRelay(context.Background(), r)
	solDone := background(func() error { return echoSolution(sol) })
	ev.send(callA)
	if _, err := ev.recv(); err != nil {
		t.Fatal(err)
	}
	endRelay(t, ev, wait, solDone)
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, "; ") != "evaluator a f; evaluator a f result" {
		t.Fatalf("call events %q", got)
	}
}

// describeCall is e as "side id name [outcome]".
func describeCall(e *Event) string {
	s := e.Side.String() + " " + string(e.ID) + " " + string(e.Name)
	if e.Kind == EventCallClosed {
		s += " " + e.Outcome.String()
	}
	return s
}

// endRelay closes the evaluator's stdout and waits for the relay and the
// solution to end.
func endRelay(t *testing.T, ev *fakeSide, wait func() (Summary, error), solDone func() error) {
	t.Helper()
	ev.stdout.Close()
	if _, err := wait(); err != nil {
		t.Fatal(err)
	}
	solDone()
}

// To an observer of lines and calls, a line's own call event (the call it
// opened, the answer it gave, the request refused) comes with the line, as
// one event; a call event no line caused (a timeout) comes on its own.
func TestCallEventsComeWithTheirLines(t *testing.T) {
	evEP, ev := newFake()
	solEP, sol := newFake()
	var mu sync.Mutex
	var traced, called []string
	obs := observe(func(e *Event) {
		mu.Lock()
		defer mu.Unlock()
		if e.Line == nil {
			called = append(called, describeCall(e))
			return
		}
		s := e.LineSide().String() + " " + string(e.Line)
		if e.Kind != EventLine {
			s += " | " + describeCall(e)
		}
		traced = append(traced, s)
	}, EventLine, EventCallOpened, EventCallClosed)
	r := NewRelay(evEP, solEP, RelayConfig{Observer: obs})
	wait := runRelay(context.Background(), r)
	solDone := background(func() error {
		defer sol.stdout.Close()
		sol.send(ready)
		for {
			line, err := sol.recv()
			if err != nil {
				return nil
			}
			if strings.Contains(line, `"id":"c"`) { // a is in flight, and its duplicate refused
				sol.send(resultA)
			}
		}
	})
	callB := `{"type":"call","id":"b","fn":"g","args":[],"timeout_ms":1}`
	ev.send(callB)
	if got, _ := ev.recv(); !strings.Contains(got, `"id":"b"`) {
		t.Fatalf("the evaluator got %s, want b's timeout", got)
	}
	ev.send(callA)
	ev.send(callA)
	ev.send(strings.ReplaceAll(callB, `"b"`, `"c"`))
	for range 3 { // the duplicate's refusal, then a's result and c's timeout in either order
		if _, err := ev.recv(); err != nil {
			t.Fatal(err)
		}
	}
	endRelay(t, ev, wait, solDone)
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(traced, "\n")
	for _, want := range []string{
		"solution " + ready + "\n",
		"evaluator " + callB + " | evaluator b g\n",
		"evaluator " + callA + " | evaluator a f\n",
		"evaluator " + callA + " | evaluator a f refused",
		"solution " + resultA + " | evaluator a f result",
	} {
		if !strings.Contains(all+"\n", want) {
			t.Errorf("no trace event %q in\n%s", want, all)
		}
	}
	if strings.Join(called, "; ") != "evaluator b g timeout; evaluator c g timeout" {
		t.Errorf("call events without a line %q, want only the timeouts", called)
	}
}

// Every kind has a name of its own, and a relay's set of wanted kinds holds
// them all.
func TestEventKindsNamed(t *testing.T) {
	seen := map[string]EventKind{}
	for k := EventKind(1); k < numEventKinds; k++ {
		name := k.String()
		if name == "?" || seen[name] != 0 {
			t.Errorf("kind %d is named %q (also kind %d's)", k, name, seen[name])
		}
		seen[name] = k
	}
	if numEventKinds > 32 {
		t.Errorf("%d kinds: eventSet (uint32) holds 32", numEventKinds)
	}
	if got := EventKind(numEventKinds).String(); got != "?" {
		t.Errorf("a kind past the last is named %q", got)
	}
}
