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
)

// owedCall is one queued hook call. Its bytes are copied into owedHooks.buf
// (the line's, or the id's and name's), since the lines they come from are
// reused once the next read begins.
type owedCall struct {
	kind     hookKind
	from     Side
	lineKind LineKind   // trace
	outcome  Outcome    // call
	reason   DropReason // warn
	closed   bool       // call
	named    bool       // call: it has a name
	at       time.Time
	n        int64         // trace: the line's full length; progress: the index in stats
	took     time.Duration // call
	stream   string        // log
	a, b, c  int           // bytes in buf: [a, b) (line, payload, data or id) and [b, c) (name)
}

// owedHooks is the hook calls queued and not yet made.
type owedHooks struct {
	calls []owedCall
	buf   []byte
	stats []Stats
}

func (o *owedHooks) add(hc owedCall, data, name []byte) {
	hc.a = len(o.buf)
	o.buf = append(o.buf, data...)
	hc.b = len(o.buf)
	o.buf = append(o.buf, name...)
	hc.c = len(o.buf)
	o.calls = append(o.calls, hc)
}

// reset empties o for reuse, dropping its references.
func (o *owedHooks) reset() {
	clear(o.calls)
	o.calls, o.buf, o.stats = o.calls[:0], o.buf[:0], o.stats[:0]
}

// call makes the queued calls in order.
func (o *owedHooks) call(h *Hooks) {
	for i := range o.calls {
		hc := &o.calls[i]
		data, name := o.buf[hc.a:hc.b], o.buf[hc.b:hc.c]
		switch hc.kind {
		case hookOutput:
			h.Output(data, hc.at)
		case hookResult:
			h.Result(data)
		case hookLog:
			h.Log(hc.stream, data, hc.at)
		case hookTrace:
			h.Trace(TraceEvent{From: hc.from, At: hc.at, Kind: hc.lineKind, Line: data, Length: hc.n})
		case hookWarn:
			h.Warn(hc.from, hc.reason, hc.at)
		case hookProgress:
			h.Progress(o.stats[hc.n])
		case hookCall:
			ev := CallEvent{Closed: hc.closed, From: hc.from, ID: data, At: hc.at, Outcome: hc.outcome, Took: hc.took}
			if hc.named {
				ev.Name = name
			}
			h.Call(ev)
		}
	}
}

// tell makes the hook calls queued so far, in order: one caller at a time,
// so calls queued later wait for those before them.
func (r *Relay) tell() { r.makeOwed(nil) }

// Report calls f(at) in its place among the hook calls: after those for
// everything the relay routed before at, before those for anything it
// routes after. The caller tells of something that happened outside the
// relay (a process's exit, a request to the LM) in the order, and with
// times, consistent with the relay's own.
func (r *Relay) Report(f func(at time.Time)) { r.makeOwed(f) }

// makeOwed makes the hook calls queued so far, then calls then (if set)
// with a time after theirs and before any queued later.
func (r *Relay) makeOwed(then func(at time.Time)) {
	r.tellMu.Lock()
	defer r.tellMu.Unlock()
	r.mu.Lock()
	if then == nil && len(r.owed.calls) == 0 {
		r.mu.Unlock()
		return
	}
	at := time.Now()
	r.owed, r.telling = r.telling, r.owed
	r.mu.Unlock()
	r.telling.call(&r.cfg.Hooks)
	r.telling.reset()
	if then != nil {
		then(at)
	}
}
