package dual

import "time"

// The relay makes its hook calls (all but FirstEvaluatorLine) after it has
// forwarded what it routed: route and the deadlines queue each call, in
// order, under the relay's lock, and tell makes them once the sends are
// put, outside the lock. A batch of lines then reaches the other side
// without waiting for the judge's observers (a trace records every line),
// and the observers' work overlaps the sides' instead of adding to each
// call's round trip.

type hookKind uint8

const (
	hookOutput hookKind = iota
	hookResult
	hookLog
	hookTrace
	hookWarn
	hookProgress
	hookCall
	hookResultLine
)

// span is where a queued call's bytes are in hookQueue.buf.
type span struct{ from, to int }

// queuedHook is one queued hook call. Its bytes are copied into hookQueue.buf
// (the line's, and a call's id and name), since the lines they come from
// are reused once the next read begins.
type queuedHook struct {
	kind     hookKind
	from     Side       // the line's, the drop's
	callFrom Side       // call: the side that made it
	lineKind LineKind   // trace
	outcome  CallEnd    // call
	reason   DropReason // warn
	hasCall  bool       // trace: the line's own call event joined it (TraceEvent.Call)
	closed   bool       // call
	named    bool       // call: it has a name
	at       time.Time
	n        int64         // trace: the line's full length; progress: the index in stats
	took     time.Duration // call
	stream   string        // log
	data     span          // the line, payload or log data
	id, name span          // call
}

// hookQueue is the hook calls queued and not yet made.
type hookQueue struct {
	calls []queuedHook
	buf   []byte
	stats []Stats
	line  int       // 1 + the index of the trace call for the line being routed; 0: none
	call  CallEvent // a joined call event, valid during its Trace call
}

func (o *hookQueue) keep(b []byte) span {
	s := span{from: len(o.buf)}
	o.buf = append(o.buf, b...)
	s.to = len(o.buf)
	return s
}

func (o *hookQueue) bytes(s span) []byte { return o.buf[s.from:s.to] }

func (o *hookQueue) add(hc queuedHook, data []byte) {
	hc.data = o.keep(data)
	o.calls = append(o.calls, hc)
}

// addCall queues the call event a: with the trace call of the line being
// routed, whose own it is (a line opens, answers or is refused at most one
// call, and only a line does), or on its own.
func (o *hookQueue) addCall(a *action, at time.Time) {
	var hc *queuedHook
	if o.line > 0 {
		hc, o.line = &o.calls[o.line-1], 0
		hc.hasCall = true
	} else {
		o.calls = append(o.calls, queuedHook{kind: hookCall, at: at})
		hc = &o.calls[len(o.calls)-1]
	}
	hc.callFrom, hc.closed, hc.outcome, hc.took, hc.named = a.From, a.Kind == actCallClosed, a.End, a.Took, a.Name != nil
	hc.id, hc.name = o.keep(a.ID), o.keep(a.Name)
}

// reset empties o for reuse, dropping its references.
func (o *hookQueue) reset() {
	clear(o.calls)
	o.calls, o.buf, o.stats, o.line = o.calls[:0], o.buf[:0], o.stats[:0], 0
}

// callEvent is hc's call event.
func (o *hookQueue) callEvent(hc *queuedHook) CallEvent {
	ev := CallEvent{Closed: hc.closed, From: hc.callFrom, ID: o.bytes(hc.id), At: hc.at, End: hc.outcome, Took: hc.took}
	if hc.named {
		ev.Name = o.bytes(hc.name)
	}
	return ev
}

// makeCalls makes the queued calls in order.
func (o *hookQueue) makeAll(h *Hooks) {
	for i := range o.calls {
		hc := &o.calls[i]
		data := o.bytes(hc.data)
		switch hc.kind {
		case hookOutput:
			h.Output(data, hc.at)
		case hookResultLine:
			h.ResultLine(data, hc.at)
		case hookResult:
			h.Result(data)
		case hookLog:
			h.Log(hc.stream, data, hc.at)
		case hookTrace:
			ev := TraceEvent{From: hc.from, At: hc.at, Kind: hc.lineKind, Line: data, Length: hc.n}
			if hc.hasCall {
				o.call = o.callEvent(hc)
				ev.Call = &o.call
			}
			h.Trace(ev)
		case hookWarn:
			h.Warn(hc.from, hc.reason, hc.at)
		case hookProgress:
			h.Progress(o.stats[hc.n])
		case hookCall:
			h.Call(o.callEvent(hc))
		}
	}
	o.call = CallEvent{}
}

// tell makes the hook calls queued so far, in order: one caller at a time,
// so calls queued later wait for those before them.
func (r *Relay) tell() { r.makeQueued(nil) }

// Report calls f(at) in its place among the hook calls: after those for
// everything the relay routed before at, before those for anything it
// routes after. The caller tells of something that happened outside the
// relay (a process's exit, a request to the LM) in the order, and with
// times, consistent with the relay's own.
func (r *Relay) Report(f func(at time.Time)) { r.makeQueued(f) }

// makeOwed makes the hook calls queued so far, then calls then (if set)
// with a time after theirs and before any queued later.
func (r *Relay) makeQueued(then func(at time.Time)) {
	r.tellMu.Lock()
	defer r.tellMu.Unlock()
	r.mu.Lock()
	if then == nil && len(r.queued.calls) == 0 {
		r.mu.Unlock()
		return
	}
	var at time.Time
	if then != nil {
		at = time.Now()
	}
	r.queued, r.telling = r.telling, r.queued
	r.mu.Unlock()
	r.telling.makeAll(&r.cfg.Hooks)
	r.telling.reset()
	if then != nil {
		then(at)
	}
}
