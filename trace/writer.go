package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
	"unsafe"

	"github.com/tether-dev/tether/dual"
	"github.com/tether-dev/tether/judge"
)

const (
	flushAt    = 64 << 10              // pending bytes that wake the file writer at once
	flushEvery = 50 * time.Millisecond // the most a recorded event waits for the file
	maxPending = 8 << 20               // pending bytes beyond which Observe waits for the file
	writeAt    = 256 << 10             // encoded bytes the file writer writes in one go
)

// Writer records a run as a trace. It is a judge.SelectiveObserver; Close
// it after judge.Run returns to write the end line and flush.
//
// Observe runs on the relay's goroutine while the relay waits, so it only
// copies what it is told (the event's facts into a rec, its bytes into
// data); the file writer's goroutine encodes the lines, applies the cap
// and writes them.
type Writer struct {
	start time.Time
	max   int64
	out   io.Writer
	wake  chan struct{}
	done  chan struct{}
	timer *time.Timer

	mu        sync.Mutex
	room      *sync.Cond // signalled when the file writer took what was pending
	recs      []rec      // events waiting for the file writer
	data      []byte     // their bytes, in order
	spareRecs []rec      // the file writer's buffers, swapped with recs and data
	spareData []byte
	armed     bool // timer set to wake the file writer
	closed    bool
	closedAt  time.Time
	capped    bool      // the file writer reached the cap: Observe keeps no more bytes
	err       error     // the first write error
	lastAt    time.Time // the last event's

	enc encoder // the file writer's own
}

// rec is one event as Observe keeps it: its facts, and the lengths of its
// bytes in data (ID and name; the line; a call and the line that opened
// it: the line; an answer and the line that answered it: the line and
// name; or, for the rare kinds holding pointers, their member already
// encoded).
type rec struct {
	t        int64 // µs since the header's Started
	n        int64 // line (or the line a call or answer carries): its full length; restart: restarts so far
	us       int64 // answer: µs taken
	a, b, c  int32 // bytes in data: the line (a), ID (b) and name (c); or the member (a)
	kind     judge.EventKind
	side     dual.Side
	lineKind dual.LineKind
	outcome  dual.Outcome
	reason   dual.DropReason
	hasName  bool
	skipped  bool // after the cap: only counted
}

// carriesFrame reports whether r is a call or answer recorded with the
// frame that opened or answered it (see Writer.fold).
func (r *rec) carriesFrame() bool {
	return r.a > 0 && (r.kind == judge.EventCallOpened || r.kind == judge.EventCallClosed)
}

const recSize = int(unsafe.Sizeof(rec{}))

// NewWriter writes h and then the run's events to out, keeping the trace
// under max bytes (max <= 0: DefaultMax) apart from its verdict and end
// lines. It starts a goroutine that Close stops.
func NewWriter(out io.Writer, h Header, max int64) *Writer {
	if max <= 0 {
		max = DefaultMax
	}
	if h.Trace == 0 {
		h.Trace = Version
	}
	if h.Started.IsZero() {
		h.Started = time.Now()
	}
	w := &Writer{start: h.Started, max: max, out: out, wake: make(chan struct{}, 1), done: make(chan struct{})}
	w.room = sync.NewCond(&w.mu)
	w.timer = time.AfterFunc(time.Hour, w.signal)
	w.timer.Stop()
	hdr, err := json.Marshal(h)
	if err != nil {
		panic(err) // strings, ints and a time only
	}
	w.enc = encoder{max: max, cpuAtStart: processCPU(), out: append(append([]byte(nil), hdr...), '\n')}
	w.enc.written = int64(len(w.enc.out))
	go w.flush()
	return w
}

// Wants: the kinds a trace records, lines included; output, log and
// progress events are not built for it (its lines already hold them).
func (w *Writer) Wants(k judge.EventKind) bool { return kindOf(k) != "" }

func (w *Writer) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Observe records ev for the file writer.
func (w *Writer) Observe(ev *judge.Event) {
	if kindOf(ev.Kind) == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.record(ev)
	w.pending()
}

// record appends ev to w.recs, or folds it into the line before it. w.mu
// held.
func (w *Writer) record(ev *judge.Event) {
	if !w.fold(ev) {
		w.recs = append(w.recs, w.keep(ev))
	}
	w.lastAt = ev.At
}

// fold records a call or answer in the line event just before it when
// that line opened or answered it (routed at the same instant): the
// evaluator's call line (a capability's: the solution's), or the other
// side's result or error line. A trace then holds one event per call and
// one per answer, each with its frame. Anything else is recorded on its
// own. w.mu held.
func (w *Writer) fold(ev *judge.Event) bool {
	last := len(w.recs) - 1
	if last < 0 || !ev.At.Equal(w.lastAt) {
		return false
	}
	r := &w.recs[last]
	if r.kind != judge.EventLine || r.skipped || r.lineKind != dual.Framed || r.n != int64(r.a) {
		return false
	}
	switch {
	case ev.Kind == judge.EventCallOpened && ev.Side == r.side:
	case ev.Kind == judge.EventCallClosed && ev.Side == r.side.Other() &&
		(ev.Outcome == dual.OutcomeResult || ev.Outcome == dual.OutcomeError):
	default:
		return false
	}
	r.kind, r.side, r.outcome, r.us, r.hasName = ev.Kind, ev.Side, ev.Outcome, ev.Took.Microseconds(), ev.Name != nil
	if ev.Kind == judge.EventCallClosed { // the frame holds the id, and a call's frame its fn (frameNames)
		r.c = int32(len(ev.Name))
		w.data = append(w.data, ev.Name...)
	}
	return true
}

// keep is ev as a rec, its bytes appended to w.data. w.mu held.
func (w *Writer) keep(ev *judge.Event) rec {
	r := rec{t: ev.At.Sub(w.start).Microseconds(), kind: ev.Kind, side: ev.Side}
	switch {
	case w.capped && ev.Kind != judge.EventVerdict:
		r.skipped, r.n = true, ev.Length
	case ev.Kind == judge.EventLine:
		line := ev.Line
		if len(line) > maxPayload {
			line = line[:maxPayload]
		}
		r.n, r.lineKind, r.a = ev.Length, ev.LineKind, int32(len(line))
		w.data = append(w.data, line...)
	case ev.Kind == judge.EventCallOpened || ev.Kind == judge.EventCallClosed:
		r.us, r.outcome, r.hasName = ev.Took.Microseconds(), ev.Outcome, ev.Name != nil
		r.b, r.c = int32(len(ev.ID)), int32(len(ev.Name))
		w.data = append(append(w.data, ev.ID...), ev.Name...)
	case ev.Kind == judge.EventDrop:
		r.reason = ev.Reason
	case ev.Kind == judge.EventRestart:
		r.n = int64(ev.Restarts)
	default: // exit, lm, verdict: rare, and their pointers are valid only now
		n := len(w.data)
		w.data = appendMember(w.data, ev)
		r.a = int32(len(w.data) - n)
	}
	return r
}

// pending wakes the file writer when enough is pending, or arms the timer
// that will; it waits while too much is. w.mu held.
func (w *Writer) pending() {
	size := len(w.data) + len(w.recs)*recSize
	switch {
	case size >= flushAt:
		w.signal()
	case !w.armed:
		w.armed = true
		w.timer.Reset(flushEvery)
	}
	for len(w.data)+len(w.recs)*recSize > maxPending && w.err == nil {
		w.room.Wait()
	}
}

// flush is the file writer: it takes what is pending, encodes it and
// writes it.
func (w *Writer) flush() {
	defer close(w.done)
	for {
		<-w.wake
		w.mu.Lock()
		recs, data := w.recs, w.data
		w.recs, w.data, w.spareRecs, w.spareData = w.spareRecs[:0], w.spareData[:0], nil, nil
		w.armed = false
		closed, closedAt, failed := w.closed, w.closedAt, w.err != nil
		w.room.Broadcast()
		w.mu.Unlock()

		err := w.enc.encode(recs, data, failed, w.write)
		if closed && err == nil {
			err = w.enc.end(w.since(closedAt), w.write)
		}
		w.mu.Lock()
		if err != nil && w.err == nil {
			w.err = err
			w.room.Broadcast()
		}
		w.capped = w.enc.capped
		w.spareRecs, w.spareData = recs[:0], data[:0]
		w.mu.Unlock()
		if closed {
			return
		}
	}
}

func (w *Writer) write(b []byte) error {
	_, err := w.out.Write(b)
	return err
}

// Close writes the end line, waits until everything is written and
// returns the first write error. Call it once, after the run.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return fmt.Errorf("trace: writer closed twice")
	}
	w.closed, w.closedAt = true, time.Now()
	w.mu.Unlock()
	w.timer.Stop()
	w.signal()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return fmt.Errorf("trace: writing the file: %w", w.err)
	}
	return nil
}

func (w *Writer) since(t time.Time) int64 { return t.Sub(w.start).Microseconds() }

func kindOf(k judge.EventKind) string {
	switch k {
	case judge.EventLine:
		return KindLine
	case judge.EventCallOpened:
		return KindCall
	case judge.EventCallClosed:
		return KindAnswer
	case judge.EventDrop:
		return KindDrop
	case judge.EventRestart:
		return KindRestart
	case judge.EventSideExit:
		return KindExit
	case judge.EventLM:
		return KindLM
	case judge.EventVerdict:
		return KindVerdict
	}
	return ""
}

// appendMember appends the member of a rare event, `,"name":<JSON>`.
func appendMember(dst []byte, ev *judge.Event) []byte {
	var name string
	var v any
	switch ev.Kind {
	case judge.EventSideExit:
		name, v = "exit", ev.Exit
	case judge.EventLM:
		name, v = "lm", ev.LM
	default:
		name, v = "result", ev.Result
	}
	b, err := json.Marshal(v)
	if err != nil {
		b = appendText(nil, []byte("trace: cannot encode: "+err.Error()))
	}
	dst = append(dst, `,"`...)
	dst = append(dst, name...)
	dst = append(dst, `":`...)
	return append(dst, b...)
}
