package judge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder keeps every event as a line of text; lines says whether it
// wants EventLine, only (when set) which kinds it wants.
type recorder struct {
	mu     sync.Mutex
	lines  bool
	only   map[EventKind]bool
	events []string
	last   *Result
	busy   bool // set while Observe runs: calls must never overlap
}

func (r *recorder) Wants(k EventKind) bool {
	if r.only != nil {
		return r.only[k]
	}
	return k != EventLine || r.lines
}

func (r *recorder) Observe(ev *Event) {
	r.mu.Lock()
	if r.busy {
		panic("Observe called while another call was running")
	}
	r.busy = true
	r.mu.Unlock()
	s := ev.Kind.String()
	switch ev.Kind {
	case EventLine:
		s += fmt.Sprintf(" %s %s %s", ev.Side, ev.LineKind, ev.Line)
	case EventOutput:
		s += " " + string(ev.Text)
	case EventCallOpened:
		s += fmt.Sprintf(" %s %s %s", ev.Side, ev.ID, ev.Name)
	case EventCallClosed:
		s += fmt.Sprintf(" %s %s %s %s", ev.Side, ev.ID, ev.Name, ev.Outcome)
	case EventDrop:
		s += fmt.Sprintf(" %s %s", ev.Side, ev.Reason)
	case EventRestart:
		s += fmt.Sprint(" ", ev.Restarts)
	case EventSideExit:
		s += " " + ev.Side.String()
		if ev.Exit.ExitCode != nil {
			s += fmt.Sprint(" exit ", *ev.Exit.ExitCode)
		} else {
			s += fmt.Sprint(" ", ev.Exit.Signal, " killed-by-judge=", ev.Exit.KilledByJudge)
		}
	case EventProgress:
		s += fmt.Sprint(" calls=", ev.Stats.Calls)
	case EventVerdict:
		s += " " + ev.Result.Status.String()
	}
	if ev.Kind != EventLine && ev.Line != nil {
		s += fmt.Sprintf(" | line %s %s %s", ev.LineSide(), ev.LineKind, ev.Line)
	}
	if ev.At.IsZero() {
		s += " (no time)"
	}
	r.mu.Lock()
	r.events = append(r.events, s)
	if ev.Kind == EventVerdict {
		r.last = ev.Result
	}
	r.busy = false
	r.mu.Unlock()
}

func (r *recorder) has(t *testing.T, want ...string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	all := strings.Join(r.events, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("no event %q in:\n%s", w, all)
		}
	}
}

func (r *recorder) count(prefix string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.events {
		if strings.HasPrefix(e, prefix) {
			n++
		}
	}
	return n
}

func TestObserverSeesTheRun(t *testing.T) {
	rec := &recorder{}
	// A long StopGrace: the evaluator exits by itself after its result,
	// however busy the machine (with the default 500 ms a loaded CI could
	// see the judge kill it).
	res := judgeCase{eval: "add", sol: "basic", opts: Options{Observer: rec, StopGrace: time.Minute}}.run(t)
	wantStatus(t, res, Accepted)
	rec.has(t, "call-opened evaluator", " add\n", "call-closed evaluator", " add result", "output case 1 ok",
		"progress calls=1", "side-exit evaluator exit 0", "side-exit solution")
	if n := rec.count("line "); n != 0 {
		t.Errorf("%d line events for an observer that did not ask for them", n)
	}
	if rec.last != res || !strings.HasPrefix(rec.events[len(rec.events)-1], "verdict Accepted") {
		t.Errorf("last event %q, want the verdict with Run's result", rec.events[len(rec.events)-1])
	}
	for _, e := range rec.events {
		if strings.HasSuffix(e, "(no time)") {
			t.Errorf("event without a time: %s", e)
		}
	}
}

// An observer told only the kinds it wants is spared the others (a
// progress event per call costs the relay a clock read and a stats copy).
func TestSelectiveObserverGetsOnlyWhatItWants(t *testing.T) {
	rec := &recorder{only: map[EventKind]bool{EventCallClosed: true, EventVerdict: true}}
	judgeCase{eval: "add", sol: "basic", opts: Options{Observer: rec}}.run(t)
	rec.has(t, "call-closed evaluator", "verdict Accepted")
	if n := rec.count("call-closed ") + rec.count("verdict "); n != len(rec.events) {
		t.Errorf("%d events of kinds it did not want:\n%s", len(rec.events)-n, strings.Join(rec.events, "\n"))
	}
}

// An observer that wants lines gets every line: a call's own line (the
// frame that opened it, the one that answered it) with the call's event
// when it wants that too, as a line of its own when not.
func TestSelectiveObserverGetsEveryLine(t *testing.T) {
	rec := &recorder{lines: true} // every kind, the result's lines too
	res := judgeCase{eval: "add", sol: "basic", opts: Options{Observer: Observers(nil, rec, ObserverFunc(func(*Event) {}))}}.run(t)
	rec.has(t, `line solution frame {"type":"ready"}`, "line evaluator text case 1 ok", "line evaluator marker ---RESULT---",
		` add | line evaluator frame {"type":"call"`, ` add result | line solution frame {"type":"result"`)
	if n := rec.count("line evaluator frame {") + rec.count("line solution frame {\"type\":\"result"); n != 0 {
		t.Errorf("%d call lines told apart from their calls", n)
	}
	// told to an observer, the result's lines stay out of the output
	if rec.count("result-line") == 0 || strings.Contains(res.Output, "RESULT") {
		t.Errorf("%d result-line events; output %q, want no result marker in it", rec.count("result-line"), res.Output)
	}

	rec = &recorder{only: map[EventKind]bool{EventLine: true, EventCallClosed: true}}
	judgeCase{eval: "add", sol: "basic", opts: Options{Observer: rec}}.run(t)
	rec.has(t, `line evaluator frame {"type":"call"`, ` add result | line solution frame {"type":"result"`)
	if n := rec.count("call-opened"); n != 0 {
		t.Errorf("%d call-opened events for an observer that did not want them", n)
	}
}

func TestObserverSeesARestart(t *testing.T) {
	rec := &recorder{}
	res := judgeCase{eval: "restart", sol: "basic", opts: Options{Observer: rec, StopGrace: exitGrace}}.run(t)
	wantStatus(t, res, Accepted)
	rec.has(t, " hang timeout", "restart 1", "side-exit solution SIGKILL killed-by-judge=true", "side-exit solution exit 0")
	if n := rec.count("side-exit solution"); n != 2 {
		t.Errorf("%d solution exits, want 2 (the one killed for overrunning, the fresh one)", n)
	}
}

func TestObserverSeesDrops(t *testing.T) {
	rec := &recorder{}
	judgeCase{eval: "forged", sol: "forger", opts: Options{Observer: rec}}.run(t)
	rec.has(t, "drop solution unknown-id", "drop solution type")
}

func TestRunRequiresARunner(t *testing.T) {
	p := judgeCase{eval: "add", sol: "basic"}.problem(t)
	for _, opts := range []*Options{nil, {PythonPath: t.TempDir()}} {
		res, err := Run(context.Background(), p, &Submission{Code: []byte("x")}, opts)
		if !errors.Is(err, ErrNoRunner) || res != nil || !strings.Contains(err.Error(), "Options.Runner") {
			t.Fatalf("Run(%+v) = %v, %v; want ErrNoRunner naming the field", opts, res, err)
		}
	}
}

// linesAndDrops records the time of each line by side, and checks that
// each drop and output line carries its line's.
type linesAndDrops struct {
	mu      sync.Mutex
	last    map[string]time.Time // the last line's time, by side
	undated []string             // events whose time is not their line's
	checked int
}

func (o *linesAndDrops) Wants(k EventKind) bool {
	return k == EventLine || k == EventDrop || k == EventOutput
}

func (o *linesAndDrops) Observe(ev *Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if ev.Kind == EventLine {
		o.last[ev.Side.String()] = ev.At
		return
	}
	o.checked++
	if line := o.last[ev.Side.String()]; !ev.At.Equal(line) {
		o.undated = append(o.undated, fmt.Sprintf("%s %s at %v, its line at %v", ev.Side, ev.Kind, ev.At, line))
	}
}

// A drop or an output line carries the time its line was routed, as every
// event the relay reports carries the time it routed: a trace's times
// never run backwards, though the observer is told after the frames went
// out.
func TestDropsAndOutputCarryTheirLinesTime(t *testing.T) {
	for _, c := range []judgeCase{{eval: "forged", sol: "forger"}, {eval: "add", sol: "basic"}} {
		o := &linesAndDrops{last: map[string]time.Time{}}
		c.opts = Options{Observer: o}
		c.run(t)
		if o.checked == 0 || len(o.undated) > 0 {
			t.Errorf("%s: %d drops and output lines; not at their line's time: %v", c.eval, o.checked, o.undated)
		}
	}
}
