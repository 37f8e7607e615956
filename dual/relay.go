package dual

import (
	"cmp"
	"context"
	"sync"
	"time"

	"github.com/tether-dev/tether/wire"
)

// Relay runs an Engine between two processes' pipes. The package doc's
// Relay section gives a line's one path: read by the poller (poll.go),
// routed under mu (routeLocked, dispatchLocked), written by its conn
// (conn.go). The Run goroutine owns the timer and the restarts.
type Relay struct {
	cfg  RelayConfig
	base time.Time // origin of the conns' busy clocks
	wake chan struct{}
	done chan struct{} // closed when Run starts shutting down
	wg   sync.WaitGroup

	rd reading // how the stdouts are read (poll_linux.go, read_other.go)

	mu            sync.Mutex // protects the fields below; taken before any conn's
	eng           *engine
	acts          []action
	conns         [2]*conn
	closed        bool
	ended         bool
	fatal         error
	restartWanted bool
	result        []byte
	resultPlain   bool
	evalGone      string
	firstOut      time.Time
	lastProgress  int64
	armedAt       time.Time // the deadline Run's timer is set for
	armed         bool
	queued        eventQueue // events queued for tell
	want          eventSet   // the kinds cfg.Observer wants

	tellMu  sync.Mutex // one tell at a time; guards telling; taken before mu
	telling eventQueue
}

// outgoing is the frames routed for each side and not yet sent: whole
// lines with their newlines, for the conn that was the side's when they
// were routed.
type outgoing struct {
	to      [2]*conn
	buf     [2][]byte
	unasked [2]bool // the buffer holds a frame the solution sent unasked
}

// NewRelay prepares a run between the evaluator's and the first solution's
// pipes. Nothing starts until Run.
func NewRelay(evaluator, solution Endpoint, cfg RelayConfig) *Relay {
	cfg.WriteStall = cmp.Or(cfg.WriteStall, defaultWriteStall)
	cfg.QueueBytes = cmp.Or(cfg.QueueBytes, defaultQueueBytes)
	cfg.MaxLine = cmp.Or(cfg.MaxLine, defaultMaxLine)
	cfg.ExitGrace = cmp.Or(cfg.ExitGrace, defaultExitGrace)
	if cfg.Restart == nil {
		cfg.Engine.OnCallTimeout = Continue
	}
	want := wantedBy(cfg.Observer)
	if want.has(EventCallOpened) || want.has(EventCallClosed) {
		cfg.Engine.ReportCalls = true
	}
	r := &Relay{cfg: cfg, base: time.Now(), wake: make(chan struct{}, 1), done: make(chan struct{}),
		eng: newEngine(cfg.Engine), want: want}
	r.conns[Evaluator] = newConn(r, Evaluator, evaluator)
	r.conns[Solution] = newConn(r, Solution, solution)
	return r
}

// Run relays until the evaluator's result arrives, the evaluator is gone
// (stdout EOF or a failed or stalled stdin write), a fatal condition
// (ErrSolutionNotReady, *RestartError), or ctx is done (ctx.Err()). It
// returns nil for the first two. Before returning it closes every pipe it
// was given and waits for every goroutine it started. Call Run once.
func (r *Relay) Run(ctx context.Context) (Summary, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.mu.Lock()
	r.start(r.conns[Evaluator])
	r.start(r.conns[Solution])
	r.acts = r.eng.SolutionStarted(time.Now(), r.acts[:0])
	r.mu.Unlock()

	timer := time.NewTimer(time.Hour)
	timer.Stop()
	type restarted struct {
		ep  Endpoint
		err error
	}
	restartDone := make(chan restarted, 1)
	restarting, restarts := false, 0
	var runErr error
	for runErr == nil {
		r.mu.Lock()
		if r.ended || r.fatal != nil {
			runErr = r.fatal
			r.mu.Unlock()
			break
		}
		if r.restartWanted && !restarting {
			r.restartWanted, restarting = false, true
			r.closeConn(r.conns[Solution])
			r.conns[Solution] = nil
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				ep, err := r.cfg.Restart(ctx)
				restartDone <- restarted{ep, err}
			}()
		}
		deadline, armed := r.eng.NextDeadline()
		r.armedAt, r.armed = deadline, armed
		r.mu.Unlock()
		if armed {
			timer.Reset(time.Until(deadline))
		}
		select {
		case <-ctx.Done():
			runErr = ctx.Err()
		case <-r.wake:
		case <-timer.C:
			r.mu.Lock()
			now := time.Now()
			r.acts = r.eng.Expire(now, r.acts[:0])
			var out outgoing
			r.dispatchLocked(&out, now)
			r.send(&out)
			r.mu.Unlock()
			r.tell()
		case rs := <-restartDone:
			if restarting = false; rs.err != nil {
				runErr = &RestartError{Err: rs.err}
				break
			}
			restarts++
			r.mu.Lock()
			r.conns[Solution] = newConn(r, Solution, rs.ep)
			r.start(r.conns[Solution])
			r.acts = r.eng.SolutionStarted(time.Now(), r.acts[:0])
			r.mu.Unlock()
		}
		timer.Stop()
	}

	r.mu.Lock()
	r.closed = true
	close(r.done)
	for _, c := range r.conns {
		r.closeConn(c)
	}
	sum := Summary{Stats: r.eng.Stats(), Result: r.result, ResultPlain: r.resultPlain, EvaluatorGone: r.evalGone,
		FirstOutput: r.firstOut, Restarts: restarts}
	r.mu.Unlock()
	cancel()
	r.wg.Wait()
	r.tell() // the events of the last lines and of the closing
	if restarting {
		if rs := <-restartDone; rs.err == nil {
			rs.ep.Stdin.Close()
			rs.ep.Stdout.Close()
		}
	}
	return sum, runErr
}

// signal wakes Run to look at the run's state again.
func (r *Relay) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// closeConn stops c: its stdin and stdout. Called with r.mu held.
func (r *Relay) closeConn(c *conn) {
	if c == nil {
		return
	}
	c.gone = true
	c.close()
	r.stopReading(c)
}

// routeLocked hands one line read from c (or the error ReadLine gave
// instead) to the engine and collects the frames to send in out. It
// reports false when err ends c's stdout; the caller sends out, then
// calls sourceEnded. r.mu held.
func (r *Relay) routeLocked(c *conn, line []byte, err error, now time.Time, out *outgoing) bool {
	tooLong, _ := err.(*wire.LineTooLongError)
	if err != nil && tooLong == nil {
		return false
	}
	if r.closed {
		return true
	}
	switch {
	case r.conns[c.side] != c:
		r.acts = r.eng.Drop(c.side, DropOldSolution, r.acts[:0])
	case tooLong != nil:
		r.acts = r.eng.LineTooLong(c.side, tooLong.Length, tooLong.Head, now, r.acts[:0])
		r.observe(c.side, now, line, tooLong)
	default:
		r.acts = r.eng.Line(c.side, line, now, r.acts[:0])
		r.observe(c.side, now, line, nil)
	}
	r.dispatchLocked(out, now)
	r.queued.line = 0
	if d, ok := r.eng.NextDeadline(); ok && (!r.armed || d.Before(r.armedAt)) {
		r.armedAt, r.armed = d, true
		r.signal() // Run re-arms its timer for the new earliest deadline
	}
	return true
}

// send hands the frames collected in out to their conns and empties it.
// It never waits: the poller reads no more from a side while a conn its
// lines go to has QueueBytes pending (back-pressure, see sources).
func (r *Relay) send(out *outgoing) {
	for side, buf := range out.buf {
		if len(buf) == 0 {
			continue
		}
		out.to[side].send(buf, out.unasked[side])
		if cap(buf) > maxKept {
			buf = nil
		}
		out.buf[side], out.unasked[side], out.to[side] = buf[:0], false, nil
	}
}

// observe reports a line the engine just routed to FirstEvaluatorLine, and
// queues its EventLine, before its actions are carried out. r.mu held.
func (r *Relay) observe(from Side, now time.Time, line []byte, tooLong *wire.LineTooLongError) {
	if from == Evaluator && r.firstOut.IsZero() {
		r.firstOut = now
		if f := r.cfg.FirstEvaluatorLine; f != nil {
			f(now)
		}
	}
	if r.want.has(EventLine) {
		ev := Event{Kind: EventLine, Side: from, At: now, Length: int64(len(line))}
		if tooLong != nil {
			line, ev.Length = tooLong.Head, tooLong.Length
		} else {
			ev.LineKind, line = r.eng.LastLine()
		}
		r.queued.addLine(ev, line)
	}
}

// stallCausedBySolution reports whether c's stalled stdin is the
// solution's doing: c is the evaluator and owes the solution a capability,
// or may not have read a frame the solution sent unasked (a capability, a
// log, a shutdown). The evaluator is then held up, not gone: deadlines keep
// firing, and its time limit (the caller's) ends a run that never moves.
func (r *Relay) stallCausedBySolution(c *conn) bool {
	if c.side != Evaluator {
		return false
	}
	r.mu.Lock()
	_, owed := r.eng.InFlight()
	r.mu.Unlock()
	return owed > 0 || c.unaskedUnread()
}

// sideGone marks c gone (once, and only while it is the side's current
// process) and lets the engine fail what it owed.
func (r *Relay) sideGone(c *conn, reason string) {
	defer r.tell() // once unlocked
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || c.gone || r.conns[c.side] != c {
		return
	}
	c.gone = true
	c.close()
	now := time.Now()
	r.acts = r.eng.Gone(c.side, reason, now, r.acts[:0])
	var out outgoing
	r.dispatchLocked(&out, now)
	r.send(&out)
	if c.side == Evaluator {
		r.evalGone = reason
		r.ended = true
		r.signal()
	}
}

// dispatchLocked carries out r.acts, produced at now. The frames to send
// are copied into out, one buffer per destination; a reader sends them
// after dropping the lock, the timer and sideGone at once without waiting.
// r.mu held.
func (r *Relay) dispatchLocked(out *outgoing, now time.Time) {
	for i := range r.acts {
		a := &r.acts[i]
		switch a.Kind {
		case actSend:
			if c := r.conns[a.To]; c != nil && !c.gone {
				out.add(c, a.Frame, a.Unasked)
			}
		case actOutput:
			if r.want.has(EventOutput) {
				r.queued.addText(Event{Kind: EventOutput, Side: Evaluator, At: now}, a.Text)
			}
		case actResultLine:
			if r.want.has(EventResultLine) {
				r.queued.addText(Event{Kind: EventResultLine, Side: Evaluator, At: now}, a.Text)
			}
		case actResult:
			r.result = append([]byte(nil), a.Text...)
			r.resultPlain = a.Plain
			r.ended = true
			r.signal()
			if r.want.has(EventResult) {
				r.queued.addText(Event{Kind: EventResult, Side: Evaluator, At: now}, a.Text)
			}
		case actLog:
			if r.want.has(EventLog) {
				r.queued.addText(Event{Kind: EventLog, Side: Solution, Stream: a.Stream, At: now}, a.Text)
			}
		case actWarn:
			if r.want.has(EventDrop) {
				r.queued.add(Event{Kind: EventDrop, Side: a.From, Reason: a.Reason, At: now})
			}
		case actRestartSolution:
			r.restartWanted = true
			r.signal()
		case actFatal:
			r.fatal = a.Err
			r.signal()
		case actCallOpened, actCallClosed:
			if r.want.has(EventCallOpened) && a.Kind == actCallOpened || r.want.has(EventCallClosed) && a.Kind == actCallClosed {
				r.queued.addCall(a, now)
			}
		}
		*a = action{}
	}
	if r.want.has(EventProgress) {
		st := r.eng.Stats()
		if n := st.Completed + st.CallTimeouts; n != r.lastProgress {
			r.lastProgress = n
			r.queued.addProgress(st, now)
		}
	}
}

// add appends frame and its newline to the buffer for c. Frames routed
// for a conn that has since been replaced are dropped with it: that
// process is gone.
func (o *outgoing) add(c *conn, frame []byte, unasked bool) {
	if o.to[c.side] != c {
		o.to[c.side], o.buf[c.side], o.unasked[c.side] = c, o.buf[c.side][:0], false
	}
	o.buf[c.side] = append(append(o.buf[c.side], frame...), '\n')
	o.unasked[c.side] = o.unasked[c.side] || unasked
}
