package dual

import "time"

// EventKind says what an Event reports and which of its fields are set.
// This is the one list of a run's event kinds: the relay emits the first
// group, package judge the rest (docs/architecture.md, "The event stream",
// says where to add one).
type EventKind uint8

const (
	// EventLine: a line Side wrote (only for an observer that wants it).
	// Line is trimmed (for a line over the wire cap, its head), Length its
	// full length, LineKind its class. A line that opened, answered or was
	// refused a call comes instead with that call's event, when the
	// observer wants that kind: see Event.LineSide.
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
	// Outcome EndRefused had no EventCallOpened before it.
	EventCallClosed
	// EventDrop: a line or frame from Side was dropped for Reason.
	EventDrop
	// EventRestart (judge): a fresh solution started (Restarts so far)
	// after the last one timed out or was gone.
	EventRestart
	// EventSideExit (judge): Side's process ended (judge.Event.Exit; the
	// solution's once per process it started; Restarts is the number of
	// its EventSideStart).
	EventSideExit
	// EventProgress: Stats after a call completed or timed out.
	EventProgress
	// EventLM (judge): the run's LM handler answered or failed a prompt
	// (judge.Event.LM).
	EventLM
	// EventVerdict (judge): the run's result (judge.Event.Result); the last
	// event of every judged run.
	EventVerdict
	// EventCompile (judge): the submission's compile step ended
	// (judge.Event.Compile), Took after it began; before any process of
	// the run starts.
	EventCompile
	// EventSideStart (judge): Side's process started; for the solution,
	// Restarts is how many were started before it (0 for the first).
	EventSideStart
	// EventResultLine: a line of the evaluator's that belongs to a result
	// (Text: a marker, told without its nonce, a payload, a blank line
	// between them), in its place among the EventOutput events.
	EventResultLine
	// EventResult: the evaluator's result payload (Text); the relay then
	// ends.
	EventResult

	numEventKinds = iota + 1
)

var eventNames = [numEventKinds]string{"?", "line", "output", "log", "call-opened", "call-closed", "drop", "restart",
	"side-exit", "progress", "lm", "verdict", "compile", "side-start", "result-line", "result"}

// String is the kind's name ("call-opened").
func (k EventKind) String() string {
	if int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "?"
}

// Event is one thing that happened in a run. Which fields are set depends
// on Kind. Byte slices and pointers are valid only during the Observe call
// that delivers it: copy what you keep. package judge adds the payloads of
// its own kinds (judge.Event embeds Event).
type Event struct {
	Kind     EventKind
	At       time.Time
	Side     Side
	Line     []byte        // EventLine; a call's own line (see LineSide)
	Length   int64         // with Line
	LineKind LineKind      // with Line
	Text     []byte        // EventOutput, EventLog, EventResultLine, EventResult
	Stream   string        // EventLog
	ID, Name []byte        // EventCallOpened, EventCallClosed
	Outcome  CallEnd       // EventCallClosed
	Took     time.Duration // EventCallClosed, EventCompile
	Reason   DropReason    // EventDrop
	Restarts int           // EventRestart; EventSideStart, EventSideExit: the solution's process number
	Stats    *Stats        // EventProgress
}

// LineSide is the side that wrote ev.Line. An observer that wants lines is
// told a call's own line with the call's event: an EventCallOpened with
// the line that opened it (written by Side, who made the call), an
// EventCallClosed with the line that answered it (written by the other
// side) or, when its Outcome is EndRefused, with the request refused
// (written by Side).
func (ev *Event) LineSide() Side {
	if ev.Kind == EventCallClosed && ev.Outcome != EndRefused {
		return ev.Side.Other()
	}
	return ev.Side
}

// Observer is told the events of a run (E is Event for the relay's,
// judge.Event for a judged run's) one at a time, in the order they
// happened. It must return quickly and must not block or call back into
// what emits the events.
type Observer[E any] interface {
	Observe(ev *E)
}

// SelectiveObserver is an Observer that names the kinds of event it wants;
// none other is built for it (a progress event costs a copy of the stats
// on every call; a line event, a look at every line). An Observer that is
// not one is told every kind but the raw lines: EventLine, EventResultLine
// and EventResult (only an observer that records lines, a trace, should
// want those).
type SelectiveObserver[E any] interface {
	Observer[E]
	Wants(k EventKind) bool
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc[E any] func(ev *E)

// Observe calls f.
func (f ObserverFunc[E]) Observe(ev *E) { f(ev) }

// Observers combines observers into one that tells each in turn; nil
// entries are skipped, and nil is returned when none is left. It wants a
// kind when one of them does.
func Observers[E any](obs ...Observer[E]) Observer[E] {
	var m multiObserver[E]
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

type multiObserver[E any] []Observer[E]

func (m multiObserver[E]) Observe(ev *E) {
	for _, o := range m {
		o.Observe(ev)
	}
}

func (m multiObserver[E]) Wants(k EventKind) bool {
	for _, o := range m {
		if Wants(o, k) {
			return true
		}
	}
	return false
}

// Wants says whether o is told events of kind k (see SelectiveObserver).
func Wants[E any](o Observer[E], k EventKind) bool {
	if o == nil {
		return false
	}
	if so, ok := o.(SelectiveObserver[E]); ok {
		return so.Wants(k)
	}
	return k != EventLine && k != EventResultLine && k != EventResult
}

// eventSet is a set of kinds, fixed when the relay is made.
type eventSet uint32

func wantedBy[E any](o Observer[E]) eventSet {
	var s eventSet
	for k := EventKind(1); k < numEventKinds; k++ {
		if Wants(o, k) {
			s |= 1 << k
		}
	}
	return s
}

func (s eventSet) has(k EventKind) bool { return s&(1<<k) != 0 }

// The relay emits its events after it has forwarded what it routed: route
// and the deadlines queue each event, in order, under the relay's lock
// (Relay.mu), and tell delivers them once the sends are put, outside that
// lock, under Relay.tellMu. A batch of lines then reaches the other side
// without waiting for the observer (a trace records every line), and the
// observer's work overlaps the sides' instead of adding to each call's
// round trip. Lock order: tellMu before mu (makeQueued takes mu briefly
// inside tellMu to swap the queues); the observer runs under tellMu only.

// span is where a queued event's bytes are in eventQueue.buf; the zero
// span is no bytes (a nil slice).
type span struct {
	from, to int
	set      bool
}

// queuedEvent is one event queued: its byte fields are copied into
// eventQueue.buf (the lines they come from are reused once the next read
// begins) and set from the spans when it is told.
type queuedEvent struct {
	ev                   Event // without its byte slices and Stats
	line, text, id, name span
	stats                int // EventProgress: 1 + the index in eventQueue.stats
}

// eventQueue is the events queued and not yet told.
type eventQueue struct {
	events []queuedEvent
	buf    []byte
	stats  []Stats
	line   int // 1 + the index of the EventLine for the line being routed; 0: none
}

func (q *eventQueue) keep(b []byte) span {
	s := span{from: len(q.buf), set: true}
	q.buf = append(q.buf, b...)
	s.to = len(q.buf)
	return s
}

func (q *eventQueue) bytes(s span) []byte {
	if !s.set {
		return nil
	}
	return q.buf[s.from:s.to:s.to]
}

// add queues ev, which has no bytes.
func (q *eventQueue) add(ev Event) { q.events = append(q.events, queuedEvent{ev: ev}) }

// addText queues ev with text, its Text.
func (q *eventQueue) addText(ev Event, text []byte) {
	q.events = append(q.events, queuedEvent{ev: ev, text: q.keep(text)})
}

// addLine queues the EventLine for the line being routed; a call event it
// causes joins it (addCall).
func (q *eventQueue) addLine(ev Event, line []byte) {
	q.events = append(q.events, queuedEvent{ev: ev, line: q.keep(line)})
	q.line = len(q.events)
}

// addProgress queues an EventProgress with st.
func (q *eventQueue) addProgress(st Stats, at time.Time) {
	q.stats = append(q.stats, st)
	q.events = append(q.events, queuedEvent{ev: Event{Kind: EventProgress, At: at}, stats: len(q.stats)})
}

// addCall queues the call event of a: in place of the EventLine of the
// line being routed, whose own it is (a line opens, answers or is refused
// at most one call, and only a line does), or on its own.
func (q *eventQueue) addCall(a *action, at time.Time) {
	var qe *queuedEvent
	if q.line > 0 {
		qe, q.line = &q.events[q.line-1], 0
	} else {
		q.events = append(q.events, queuedEvent{ev: Event{At: at}})
		qe = &q.events[len(q.events)-1]
	}
	qe.ev.Kind, qe.ev.Side = EventCallOpened, a.From
	if a.Kind == actCallClosed {
		qe.ev.Kind, qe.ev.Outcome, qe.ev.Took = EventCallClosed, a.End, a.Took
	}
	qe.id = q.keep(a.ID)
	if a.Name != nil {
		qe.name = q.keep(a.Name)
	}
}

// reset empties q for reuse, dropping its references.
func (q *eventQueue) reset() {
	clear(q.events)
	q.events, q.buf, q.stats, q.line = q.events[:0], q.buf[:0], q.stats[:0], 0
}

// tellAll tells o the queued events in order.
func (q *eventQueue) tellAll(o Observer[Event]) {
	var ev Event
	for i := range q.events {
		qe := &q.events[i]
		ev = qe.ev
		ev.Line, ev.Text, ev.ID, ev.Name = q.bytes(qe.line), q.bytes(qe.text), q.bytes(qe.id), q.bytes(qe.name)
		if qe.stats > 0 {
			ev.Stats = &q.stats[qe.stats-1]
		}
		o.Observe(&ev)
	}
}

// tell delivers the events queued so far, in order: one caller at a time,
// so events queued later wait for those before them.
func (r *Relay) tell() { r.makeQueued(nil) }

// Report calls f(at) in its place among the events: after those of
// everything the relay routed before at, before those of anything it
// routes after. The caller tells of something that happened outside the
// relay (a process's exit, a request to the LM) in the order, and with
// times, consistent with the relay's own.
func (r *Relay) Report(f func(at time.Time)) { r.makeQueued(f) }

// makeQueued tells the events queued so far, then calls then (if set)
// with a time after theirs and before any queued later.
func (r *Relay) makeQueued(then func(at time.Time)) {
	r.tellMu.Lock()
	defer r.tellMu.Unlock()
	r.mu.Lock()
	if then == nil && len(r.queued.events) == 0 {
		r.mu.Unlock()
		return
	}
	var at time.Time
	if then != nil {
		at = time.Now()
	}
	r.queued, r.telling = r.telling, r.queued
	r.mu.Unlock()
	if r.cfg.Observer != nil {
		r.telling.tellAll(r.cfg.Observer)
	}
	r.telling.reset()
	if then != nil {
		then(at)
	}
}
