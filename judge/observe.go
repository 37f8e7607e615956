package judge

import (
	"strings"
	"time"

	"github.com/tether-dev/tether/dual"
	"github.com/tether-dev/tether/lang"
)

// EventKind says what an Event reports (dual.EventKind: the run's kinds
// are listed once, there).
type EventKind = dual.EventKind

// The kinds of a run's events, as dual defines them.
const (
	EventLine       = dual.EventLine
	EventOutput     = dual.EventOutput
	EventLog        = dual.EventLog
	EventCallOpened = dual.EventCallOpened
	EventCallClosed = dual.EventCallClosed
	EventDrop       = dual.EventDrop
	EventRestart    = dual.EventRestart
	EventSideExit   = dual.EventSideExit
	EventProgress   = dual.EventProgress
	EventLM         = dual.EventLM
	EventVerdict    = dual.EventVerdict
	EventCompile    = dual.EventCompile
	EventSideStart  = dual.EventSideStart
)

// Event is one thing that happened in a run: the relay's event
// (dual.Event, for the relay's kinds and the fields every kind shares)
// with the payloads of the kinds only the judge emits. Byte slices and
// pointers are valid only during the Observe call that delivers it: copy
// what you keep.
type Event struct {
	dual.Event
	Exit    *ProcessExit // EventSideExit
	LM      *LMRequest   // EventLM
	Result  *Result      // EventVerdict
	Compile *CompileStep // EventCompile
}

// CompileStep is how the submission's compile step went (EventCompile).
type CompileStep struct {
	Language string `json:"language"` // the language id, "" when the submission named none known
	lang.Stats
	Outcome string `json:"outcome"`           // "ok" or "CompileError"
	Reason  string `json:"reason,omitempty"`  // CompileError: what failed, one line
	Message string `json:"message,omitempty"` // CompileError: the head of the compiler's messages
}

// Observer is told what happens in a run (Options.Observer): a trace file,
// progress notifications, a live line. Observe is called one event at a
// time, in order, from the run's goroutines; the relay's events come once
// it has forwarded the lines they report, while it waits to read more: it
// must return quickly and must not block. A panic in it ends the run as
// SystemError.
type Observer = dual.Observer[Event]

// SelectiveObserver is an Observer that names the kinds of event it wants;
// a run builds no others for it (see dual.SelectiveObserver). An Observer
// that is not one is told every kind but the raw lines.
type SelectiveObserver = dual.SelectiveObserver[Event]

// ObserverFunc adapts a function to Observer.
type ObserverFunc = dual.ObserverFunc[Event]

// Observers combines observers into one that tells each in turn; nil
// entries are skipped. It wants a kind when one of them does.
func Observers(obs ...Observer) Observer { return dual.Observers(obs...) }

// wants says whether the run's observer is told events of kind k.
func (r *run) wants(k EventKind) bool { return dual.Wants(r.opts.Observer, k) }

// emit tells the run's observer one event, which set fills in, one event
// at a time; the relay's events, the sides' waiters, restarts and the LM
// handler all come through here. set fills the run's own scratch Event
// (zero when set is called), so an event costs no allocation and no copy:
// the relay's come through here for every line and call.
func (r *run) emit(set func(ev *Event)) {
	r.obsMu.Lock()
	defer r.obsMu.Unlock()
	defer recoverTo(r.fail)
	set(&r.obsEv)
	r.opts.Observer.Observe(&r.obsEv)
	r.obsEv = Event{} // keep no reference to the caller's bytes
}

// relayObserver is the run as the relay's observer: the verdict's part of
// the relay's events (the evaluator's output, the solution's logs) goes to
// the run's state, and every event the run's observer wants goes on to it.
type relayObserver struct {
	r      *run
	passOn [32]bool // by kind: the run's observer wants it (asked once, not per event)
}

func newRelayObserver(r *run) *relayObserver {
	o := &relayObserver{r: r}
	for k := range o.passOn {
		o.passOn[k] = k > 0 && r.wants(EventKind(k))
	}
	return o
}

// Wants: what the verdict needs, and what the run's observer wants.
func (o *relayObserver) Wants(k EventKind) bool {
	return k == EventOutput || k == EventLog || k == dual.EventResultLine && o.r.opts.NeuroOJ || o.passes(k)
}

func (o *relayObserver) passes(k EventKind) bool { return int(k) < len(o.passOn) && o.passOn[k] }

// Observe keeps what the verdict needs of ev, then passes it on.
func (o *relayObserver) Observe(ev *dual.Event) {
	r := o.r
	switch {
	case ev.Kind == EventOutput || ev.Kind == dual.EventResultLine && r.opts.NeuroOJ: // Neuro OJ's output keeps the result
		r.guard(func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.stdout.Write(ev.Text)
			r.stdout.Write(newline)
		})
	case ev.Kind == EventLog:
		r.guard(func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.logs.add(ev.Stream, ev.Text)
		})
	}
	if o.passes(ev.Kind) {
		r.emit(func(e *Event) { e.Event = *ev })
	}
}

var newline = []byte{'\n'}

// watchSide returns the callbacks that tell the observer that the side's
// process started and ended; n is the solution's process number (restarts
// before it). A nil callback is not wanted.
func (r *run) watchSide(which dual.Side, n int) sideWatch {
	var w sideWatch
	if r.wants(EventSideStart) {
		w.started = func() {
			r.emitNow(func(ev *Event) { ev.Kind, ev.Side, ev.Restarts = EventSideStart, which, n })
		}
	}
	if r.wants(EventSideExit) {
		w.exited = func(s *sandboxProcess) {
			exit := s.exit()
			r.emitNow(func(ev *Event) { ev.Kind, ev.Side, ev.Restarts, ev.Exit = EventSideExit, which, n, exit })
		}
	}
	return w
}

// compileMessageHead bounds the compiler's messages an EventCompile
// carries: the result keeps them all (tail-kept); an observer gets their
// head, where the first error is.
const compileMessageHead = 2 << 10

// observeCompile tells the observer how the compile step went: ce nil is
// success. took is the step's wall time as the judge measured it (a cache
// hit included).
func (r *run) observeCompile(language string, stats lang.Stats, ce *lang.CompileError, took time.Duration) {
	if !r.wants(EventCompile) {
		return
	}
	step := &CompileStep{Language: language, Stats: stats, Outcome: "ok"}
	if ce != nil {
		step.Outcome, step.Reason, step.Message = CompileError.String(), ce.Reason, headOf(ce.Message, compileMessageHead)
	}
	r.emitNow(func(ev *Event) { ev.Kind, ev.Took, ev.Compile = EventCompile, took, step })
}

// headOf is s cut to at most n bytes; a character cut in two is left out
// (the compiler's messages are UTF-8: package lang makes them so).
func headOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// emitNow tells the observer of something that happened now outside the
// relay (an exit, a restart, an LM request), dated now and in its place
// among the relay's events, which the relay tells once it has forwarded
// their lines: after those it routed before, before those it routes after.
// set fills in all but the time.
func (r *run) emitNow(set func(ev *Event)) {
	tell := func(at time.Time) { r.emit(func(ev *Event) { set(ev); ev.At = at }) }
	if relay := r.relay.Load(); relay != nil {
		relay.Report(tell)
		return
	}
	tell(time.Now())
}
