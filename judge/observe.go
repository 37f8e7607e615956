package judge

import (
	"strings"
	"time"

	"github.com/tether-dev/tether/dual"
	"github.com/tether-dev/tether/lang"
)

// EventKind says what an Event reports and which of its fields are set.
type EventKind uint8

const (
	// EventLine: a line Side wrote (only for a SelectiveObserver that
	// wants it). Line is trimmed (for a line over the wire cap, its head),
	// Length its full length, LineKind its class. A line that opened,
	// answered or was refused a call comes instead with that call's event,
	// when the observer wants it: see Event.LineSide.
	EventLine EventKind = iota + 1
	// EventOutput: a line of the evaluator's plain-text output (Text), as
	// printed; the result marker and payload are not output.
	EventOutput
	// EventLog: a solution log frame that was kept: Stream, Text.
	EventLog
	// EventCallOpened: Side made a call (Evaluator) or capability (Solution)
	// with ID and Name (fn or capability name).
	EventCallOpened
	// EventCallClosed: it ended with Outcome, Took after it opened.
	// Outcome dual.EndRefused had no EventCallOpened before it.
	EventCallClosed
	// EventDrop: a line or frame from Side was dropped for Reason.
	EventDrop
	// EventRestart: a fresh solution started (Restarts so far) after the
	// last one timed out or was gone.
	EventRestart
	// EventSideExit: Side's process ended as Exit (the solution's once per
	// process it started; Restarts is the number of its EventSideStart).
	EventSideExit
	// EventProgress: Stats after a call completed or timed out.
	EventProgress
	// EventLM: the run's LM handler answered or failed a prompt (LM).
	EventLM
	// EventVerdict: the run's Result; the last event of every run.
	EventVerdict
	// EventCompile: the submission's compile step ended (Compile), Took
	// after it began; before any process of the run starts. Only a
	// compiled language has one, and a submission refused before it
	// compiled (its language unknown or not allowed: Compile.Outcome
	// CompileError).
	EventCompile
	// EventSideStart: Side's process started; for the solution, Restarts
	// is how many were started before it (0 for the first).
	EventSideStart
)

var eventNames = [...]string{"?", "line", "output", "log", "call-opened", "call-closed", "drop", "restart",
	"side-exit", "progress", "lm", "verdict", "compile", "side-start"}

func (k EventKind) String() string {
	if int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "?"
}

// Event is one thing that happened in a run. Which fields are set depends
// on Kind. Byte slices and pointers are valid only during the Observe call
// that delivers it: copy what you keep.
type Event struct {
	Kind     EventKind
	At       time.Time
	Side     dual.Side
	Line     []byte        // EventLine; a call's own line (see LineSide)
	Length   int64         // with Line
	LineKind dual.LineKind // with Line
	Text     []byte        // EventOutput, EventLog
	Stream   string        // EventLog
	ID, Name []byte        // EventCallOpened, EventCallClosed
	Outcome  dual.CallEnd  // EventCallClosed
	Took     time.Duration // EventCallClosed
	Reason   dual.DropReason
	Restarts int          // EventRestart; EventSideStart, EventSideExit: the solution's process number
	Exit     *ProcessExit // EventSideExit
	Stats    *dual.Stats  // EventProgress
	LM       *LMRequest   // EventLM
	Result   *Result      // EventVerdict
	Compile  *CompileStep // EventCompile
}

// CompileStep is how the submission's compile step went (EventCompile).
type CompileStep struct {
	Language string `json:"language"` // the language id, "" when the submission named none known
	lang.Stats
	Outcome string `json:"outcome"`           // "ok" or "CompileError"
	Reason  string `json:"reason,omitempty"`  // CompileError: what failed, one line
	Message string `json:"message,omitempty"` // CompileError: the head of the compiler's messages
}

// LineSide is the side that wrote ev.Line. An observer that wants lines is
// told a call's own line with the call's event: an EventCallOpened with
// the line that opened it (written by Side, who made the call), an
// EventCallClosed with the line that answered it (written by the other
// side) or, when its Outcome is dual.EndRefused, with the request
// refused (written by Side).
func (ev *Event) LineSide() dual.Side {
	if ev.Kind == EventCallClosed && ev.Outcome != dual.EndRefused {
		return ev.Side.Other()
	}
	return ev.Side
}

// Observer is told what happens in a run (Options.Observer): a trace file,
// progress notifications, a live line. Observe is called one event at a
// time, in order, from the run's goroutines; the relay's events come once
// it has forwarded the lines they report, while it waits to read more: it
// must return quickly and must not block. A panic in it ends the run as
// SystemError.
type Observer interface {
	Observe(ev *Event)
}

// SelectiveObserver is an Observer that names the kinds of event it wants;
// a run builds no others for it (a progress event costs a clock read and a
// copy of the stats on every call; a line event, a look at every line). An
// Observer that is not one is told every kind but EventLine: only an
// observer that records lines (a trace) should want those.
type SelectiveObserver interface {
	Observer
	Wants(k EventKind) bool
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(ev *Event)

func (f ObserverFunc) Observe(ev *Event) { f(ev) }

// Observers combines observers into one that tells each in turn; nil
// entries are skipped. It wants lines when one of them does.
func Observers(obs ...Observer) Observer {
	var m multiObserver
	for _, o := range obs {
		if o != nil {
			m = append(m, o)
		}
	}
	switch len(m) {
	case 0:
		return nil
	case 1:
		return m[0]
	}
	return m
}

type multiObserver []Observer

func (m multiObserver) Observe(ev *Event) {
	for _, o := range m {
		o.Observe(ev)
	}
}

func (m multiObserver) Wants(k EventKind) bool {
	for _, o := range m {
		if wants(o, k) {
			return true
		}
	}
	return false
}

// wants says whether o is told events of kind k.
func wants(o Observer, k EventKind) bool {
	if o == nil {
		return false
	}
	if so, ok := o.(SelectiveObserver); ok {
		return so.Wants(k)
	}
	return k != EventLine
}

// wants says whether the run's observer is told events of kind k.
func (r *run) wants(k EventKind) bool { return wants(r.opts.Observer, k) }

// emit tells the run's observer one event, which set fills in, one event
// at a time; the relay's hooks, the sides' waiters, restarts and the LM
// handler all come through here. set fills the run's own scratch Event
// (zero when set is called), so an event costs no allocation and no copy:
// the relay's hooks call this for every line and call.
func (r *run) emit(set func(ev *Event)) {
	r.obsMu.Lock()
	defer r.obsMu.Unlock()
	defer recoverTo(r.fail)
	set(&r.obsEv)
	r.opts.Observer.Observe(&r.obsEv)
	r.obsEv = Event{} // keep no reference to the caller's bytes
}

// observeHooks sets the relay's hooks that feed the observer.
func (r *run) observeHooks(h *dual.Hooks) {
	if r.wants(EventDrop) {
		h.Warn = func(from dual.Side, reason dual.DropReason, at time.Time) {
			r.emit(func(ev *Event) { ev.Kind, ev.At, ev.Side, ev.Reason = EventDrop, at, from, reason })
		}
	}
	if r.wants(EventProgress) {
		h.Progress = func(s dual.Stats) {
			r.emit(func(ev *Event) { r.obsStats = s; ev.Kind, ev.At, ev.Stats = EventProgress, time.Now(), &r.obsStats })
		}
	}
	opened, closed := r.wants(EventCallOpened), r.wants(EventCallClosed)
	wanted := func(c *dual.CallEvent) bool { return c.Closed && closed || !c.Closed && opened }
	if opened || closed {
		h.Call = func(c dual.CallEvent) {
			if wanted(&c) {
				r.emit(func(ev *Event) { setCall(ev, &c) })
			}
		}
	}
	if r.wants(EventLine) {
		h.Trace = func(t dual.TraceEvent) {
			r.emit(func(ev *Event) {
				if t.Call != nil && wanted(t.Call) {
					setCall(ev, t.Call) // one event for the line and its call
				} else {
					ev.Kind, ev.At, ev.Side = EventLine, t.At, t.From
				}
				ev.Line, ev.Length, ev.LineKind = t.Line, t.Length, t.Kind
			})
		}
	}
}

// setCall fills ev in as c's event.
func setCall(ev *Event, c *dual.CallEvent) {
	ev.Kind, ev.At, ev.Side, ev.ID, ev.Name = EventCallOpened, c.At, c.From, c.ID, c.Name
	if c.Closed {
		ev.Kind, ev.Outcome, ev.Took = EventCallClosed, c.End, c.Took
	}
}

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
