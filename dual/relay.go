package dual

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tether-dev/tether/wire"
)

// Relay runs an Engine between two processes' pipes. A line takes one path:
//
//  1. read: a side's stdout is read line by line (read below; on Linux the
//     pump reads every pipe on one goroutine instead, see pump.go);
//  2. route: under the relay's lock the Engine turns the line into
//     actions, and dispatchLocked carries them out, collecting the frames
//     to forward, one buffer per destination;
//  3. put: before the reader reads again, each buffer goes into its
//     destination's bounded queue (putSends);
//  4. write: that side's writer goroutine drains the queue into its stdin
//     (a put into an empty queue writes what the pipe takes at once itself,
//     when the pump can write without blocking).
//
// The Run goroutine owns the one timer for the earliest deadline and the
// restarts. A peer that stops reading stalls only its own queue (and, by
// back-pressure, the reading of what is sent to it), never a deadline;
// after WriteStall it counts as gone unless the stall is the solution's
// doing (stallCausedBySolution).
type Relay struct {
	cfg  RelayConfig
	pump pump      // how stdouts are read and stdins written without blocking
	base time.Time // origin of the writers' busy clocks
	wake chan struct{}
	done chan struct{} // closed when Run starts shutting down
	wg   sync.WaitGroup

	mu            sync.Mutex // protects the fields below
	eng           *Engine
	acts          []Action
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
	owed          owedHooks // hook calls queued for tell

	tellMu  sync.Mutex // one tell at a time; guards telling
	telling owedHooks
}

// conn is one process's pipes and its write queue.
type conn struct {
	side      Side
	ep        Endpoint
	q         *writeQueue
	gone      bool         // guarded by Relay.mu
	busySince atomic.Int64 // writer: 1 + ns since Relay.base when the current write began, 0 when idle
}

// pendingSend is a forwarded buffer a reader puts after dropping the lock.
type pendingSend struct {
	c       *conn
	buf     []byte
	unasked bool // holds an unasked frame (Action.Unasked)
}

// NewRelay prepares a run between the evaluator's and the first solution's
// pipes. Nothing starts until Run.
func NewRelay(evaluator, solution Endpoint, cfg RelayConfig) *Relay {
	cfg.WriteStall = cmp.Or(cfg.WriteStall, DefaultWriteStall)
	cfg.QueueBytes = cmp.Or(cfg.QueueBytes, DefaultQueueBytes)
	cfg.MaxLine = cmp.Or(cfg.MaxLine, DefaultMaxLine)
	cfg.ExitGrace = cmp.Or(cfg.ExitGrace, DefaultExitGrace)
	if cfg.Restart == nil {
		cfg.Engine.OnCallTimeout = Continue
	}
	if cfg.Hooks.Call != nil {
		cfg.Engine.ReportCalls = true
	}
	r := &Relay{cfg: cfg, base: time.Now(), wake: make(chan struct{}, 1), done: make(chan struct{}),
		eng: NewEngine(cfg.Engine)}
	r.pump = newPump(r)
	r.conns[Evaluator] = &conn{side: Evaluator, ep: evaluator}
	r.conns[Solution] = &conn{side: Solution, ep: solution}
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
			sends := r.dispatchLocked(nil, now)
			r.putSends(&sends, false)
			r.mu.Unlock()
			r.tell()
		case rs := <-restartDone:
			if restarting = false; rs.err != nil {
				runErr = &RestartError{Err: rs.err}
				break
			}
			restarts++
			r.mu.Lock()
			r.conns[Solution] = &conn{side: Solution, ep: rs.ep}
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
	r.pump.close()
	r.tell() // what the last lines and the closing owed
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

// start gives c its queue and writer goroutine and has the pump read its
// stdout. Called with r.mu held.
func (r *Relay) start(c *conn) {
	c.q = newWriteQueue(r.cfg.QueueBytes, r.pump.writer(c.ep.Stdin), pipeSize(c.ep.Stdin))
	r.wg.Add(1)
	go r.write(c)
	r.pump.read(c)
}

// closeConn stops c: its queue, stdin and stdout. Called with r.mu held.
func (r *Relay) closeConn(c *conn) {
	if c == nil {
		return
	}
	c.gone = true
	c.q.close()
	c.ep.Stdin.Close()
	r.pump.stop(c)
}

// read is the reader goroutine of c's stdout. It routes each line and puts
// the collected sends, waiting for queue room (back-pressure), only when
// it is about to read from the pipe again or stops: the lines one read
// brought in reach each destination's queue as one buffer, in order.
func (r *Relay) read(c *conn) {
	defer r.wg.Done()
	sends := make([]pendingSend, 0, 4)
	flush := func() {
		r.putSends(&sends, true)
		r.tell()
	}
	lr := wire.NewLineReader(flushingReader{c.ep.Stdout, flush}, r.cfg.MaxLine)
	for {
		line, err := lr.ReadLine()
		if !r.route(c, line, err, &sends) {
			flush()
			r.sourceEnded(c, err)
			return
		}
	}
}

// flushingReader calls flush before every Read of the pipe: the reader's
// collected sends go out before it may block waiting for more input.
type flushingReader struct {
	r     io.Reader
	flush func()
}

func (f flushingReader) Read(p []byte) (int, error) {
	f.flush()
	return f.r.Read(p)
}

// route hands one line read from c (or the error ReadLine gave instead) to
// the engine and collects the frames to send in *sends. It reports false
// when err ends c's stdout; the caller puts the sends, then calls
// sourceEnded.
func (r *Relay) route(c *conn, line []byte, err error, sends *[]pendingSend) bool {
	var tooLong *wire.LineTooLongError
	if err != nil && !errors.As(err, &tooLong) {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return true
	}
	now := time.Now()
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
	*sends = r.dispatchLocked(*sends, now)
	r.owed.line = 0
	if d, ok := r.eng.NextDeadline(); ok && (!r.armed || d.Before(r.armedAt)) {
		r.armedAt, r.armed = d, true
		r.signal() // Run re-arms its timer for the new earliest deadline
	}
	return true
}

// putSends puts the collected sends into their destinations' queues. With
// wait, a put waits while the queue is full: a reader goroutine's
// back-pressure. The pump never waits; it stops reading the sides that
// send to a full queue instead.
func (r *Relay) putSends(sends *[]pendingSend, wait bool) {
	for i, s := range *sends {
		if !s.c.q.put(s.buf, wait, s.unasked) {
			putLine(s.buf)
		}
		(*sends)[i] = pendingSend{}
	}
	*sends = (*sends)[:0]
}

// sourceEnded reports c's stdout ended with err. Naming the reason may
// wait up to ExitGrace for the process's exit, so it runs on a goroutine
// of its own: the other side is read meanwhile.
func (r *Relay) sourceEnded(c *conn, err error) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.sideGone(c, r.endReason(c, err))
	}()
}

// endReason names why c's stdout ended: the process's exit when the
// endpoint reports it within ExitGrace, else the read error.
func (r *Relay) endReason(c *conn, err error) string {
	if err != io.EOF {
		return "stdout read failed: " + err.Error()
	}
	if c.ep.Exited == nil {
		return "stdout closed"
	}
	t := time.NewTimer(r.cfg.ExitGrace)
	defer t.Stop()
	select {
	case s, ok := <-c.ep.Exited:
		if ok && s != "" {
			return s
		}
		return "exited"
	case <-t.C:
		return "stdout closed"
	case <-r.done:
		return "stdout closed"
	}
}

// observe reports a line the engine just routed to the first-output hook,
// and queues it for the trace hook, before its actions are carried out.
// r.mu held.
func (r *Relay) observe(from Side, now time.Time, line []byte, tooLong *wire.LineTooLongError) {
	if from == Evaluator && r.firstOut.IsZero() {
		r.firstOut = now
		if h := r.cfg.Hooks.FirstEvaluatorLine; h != nil {
			h(now)
		}
	}
	if r.cfg.Hooks.Trace != nil {
		hc := owedCall{kind: hookTrace, from: from, at: now, n: int64(len(line))}
		if tooLong != nil {
			line, hc.n = tooLong.Head, tooLong.Length
		} else {
			hc.lineKind, line = r.eng.LastLine()
		}
		r.owed.add(hc, line)
		r.owed.line = len(r.owed.calls) // its call event joins it
	}
}

// write is c's writer goroutine; a failed write, or one blocked for
// WriteStall, makes c gone. It takes the queued lines in batches and
// writes each batch with one Write, so a burst of frames costs one system
// call and one wake-up rather than one per frame.
func (r *Relay) write(c *conn) {
	defer r.wg.Done()
	var stall *time.Timer
	stall = time.AfterFunc(time.Hour, func() {
		since := c.busySince.Load()
		if since == 0 || time.Since(r.base)-time.Duration(since-1) < r.cfg.WriteStall {
			return
		}
		if r.stallCausedBySolution(c) {
			stall.Reset(r.cfg.WriteStall) // held up, not gone: look again later
			return
		}
		r.sideGone(c, fmt.Sprintf("stdin write blocked for %v", r.cfg.WriteStall))
	})
	stall.Stop()
	defer stall.Stop()
	var batch []byte
	for {
		var ok bool
		if batch, ok = c.q.pop(batch[:0]); !ok {
			return
		}
		c.busySince.Store(int64(time.Since(r.base)) + 1)
		stall.Reset(r.cfg.WriteStall)
		n, err := c.ep.Stdin.Write(batch)
		stall.Stop()
		c.busySince.Store(0)
		c.q.wrote(n)
		if cap(batch) > maxPooled {
			batch = nil // one huge frame does not stay pinned
		}
		if err != nil {
			r.sideGone(c, "stdin write failed: "+err.Error())
			return
		}
	}
}

// stallCausedBySolution reports whether c's stalled stdin is the
// solution's doing: c is the evaluator and it owes the solution a
// capability, or a frame the solution sent unasked (a capability, a log,
// a shutdown) may still be unread in its pipe or queue. The evaluator is
// then held up, not gone: back-pressure reaches the solution (its frames
// wait in its own pipe), deadlines keep firing, and the evaluator's time
// limit, which the caller keeps, ends a run that never moves again.
func (r *Relay) stallCausedBySolution(c *conn) bool {
	if c.side != Evaluator {
		return false
	}
	r.mu.Lock()
	_, owed := r.eng.InFlight()
	r.mu.Unlock()
	return owed > 0 || c.q.unaskedUnread()
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
	c.q.close()
	c.ep.Stdin.Close()
	now := time.Now()
	r.acts = r.eng.Gone(c.side, reason, now, r.acts[:0])
	sends := r.dispatchLocked(nil, now)
	r.putSends(&sends, false)
	if c.side == Evaluator {
		r.evalGone = reason
		r.ended = true
		r.signal()
	}
}

// InFlight returns how many calls (the evaluator waiting on the solution,
// queued ones included) and capabilities (the solution waiting on the
// evaluator) are in flight now. Safe to call at any time, also from a
// timer; not from a hook.
func (r *Relay) InFlight() (calls, capabilities int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.eng.InFlight()
}

// dispatchLocked carries out r.acts, produced at now. The frames to send
// are copied onto sends, those to one destination joined in one buffer; a
// reader puts them after dropping the lock, the timer and sideGone at once
// without waiting. r.mu held.
func (r *Relay) dispatchLocked(sends []pendingSend, now time.Time) []pendingSend {
	h := &r.cfg.Hooks
	for i := range r.acts {
		a := &r.acts[i]
		switch a.Kind {
		case Send:
			if c := r.conns[a.To]; c != nil && !c.gone {
				sends = appendSend(sends, c, a.Frame, a.Unasked)
			}
		case Output:
			if h.Output != nil {
				r.owed.add(owedCall{kind: hookOutput, at: now}, a.Text)
			}
		case ResultLine:
			if h.ResultLine != nil {
				r.owed.add(owedCall{kind: hookResultLine, at: now}, a.Text)
			}
		case Result:
			r.result = append([]byte(nil), a.Text...)
			r.resultPlain = a.Plain
			r.ended = true
			r.signal()
			if h.Result != nil {
				r.owed.add(owedCall{kind: hookResult}, a.Text)
			}
		case Log:
			if h.Log != nil {
				r.owed.add(owedCall{kind: hookLog, stream: a.Stream, at: now}, a.Text)
			}
		case Warn:
			if h.Warn != nil {
				r.owed.add(owedCall{kind: hookWarn, from: a.From, reason: a.Reason, at: now}, nil)
			}
		case RestartSolution:
			r.restartWanted = true
			r.signal()
		case Fatal:
			r.fatal = a.Err
			r.signal()
		case CallOpened, CallClosed:
			if h.Call != nil {
				r.owed.addCall(a, now)
			}
		}
		*a = Action{}
	}
	if h.Progress != nil {
		st := r.eng.Stats()
		if n := st.Completed + st.CallTimeouts; n != r.lastProgress {
			r.lastProgress = n
			r.owed.stats = append(r.owed.stats, st)
			r.owed.add(owedCall{kind: hookProgress, n: int64(len(r.owed.stats) - 1)}, nil)
		}
	}
	return sends
}

// appendSend adds frame and its newline to the last pending buffer for c
// (keeping c's order), or starts a new one when there is none or it has
// reached maxBatch.
func appendSend(sends []pendingSend, c *conn, frame []byte, unasked bool) []pendingSend {
	for i := len(sends) - 1; i >= 0; i-- {
		if s := &sends[i]; s.c == c {
			if len(s.buf)+len(frame) < maxBatch {
				s.buf = append(append(s.buf, frame...), '\n')
				s.unasked = s.unasked || unasked
				return sends
			}
			break
		}
	}
	return append(sends, pendingSend{c, getLine(frame), unasked})
}
