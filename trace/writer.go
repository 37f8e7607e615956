package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tether-dev/tether/dual"
	"github.com/tether-dev/tether/judge"
)

const (
	flushAt    = 64 << 10              // pending bytes that wake the file writer at once
	flushEvery = 50 * time.Millisecond // the most a recorded event waits for the file
	maxPending = 8 << 20               // pending bytes beyond which Observe waits for the file
)

// Writer records a run as a trace. It is a judge.LineObserver; Close it
// after judge.Run returns to write the end line and flush.
type Writer struct {
	start time.Time
	max   int64
	out   io.Writer
	wake  chan struct{}
	done  chan struct{}
	timer *time.Timer

	mu         sync.Mutex
	room       *sync.Cond // signalled when the file writer took the pending bytes
	buf        []byte     // encoded lines waiting for the file writer
	spare      []byte     // the file writer's buffer, swapped with buf
	armed      bool       // timer set to wake the file writer
	closed     bool
	err        error // the first write error
	written    int64 // bytes encoded so far
	events     int64
	capped     bool
	unrec      map[string]int64
	unrecBytes int64
	cpuAtStart int64 // the process's CPU time at NewWriter, µs
}

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
	w.cpuAtStart = processCPU()
	w.timer = time.AfterFunc(time.Hour, w.signal)
	w.timer.Stop()
	hdr, err := json.Marshal(h)
	if err != nil {
		panic(err) // strings, ints and a time only
	}
	w.buf = append(append(w.buf, hdr...), '\n')
	w.written = int64(len(w.buf))
	go w.flush()
	return w
}

// WantsLines: a trace records every line either side wrote.
func (w *Writer) WantsLines() bool { return true }

func (w *Writer) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Observe records ev. Events a trace does not keep (output, log and
// progress, which its lines already hold) are ignored.
func (w *Writer) Observe(ev *judge.Event) {
	kind := kindOf(ev.Kind)
	if kind == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	always := ev.Kind == judge.EventVerdict
	if w.capped && !always {
		w.skip(kind, ev)
		return
	}
	n := len(w.buf)
	w.buf = w.encode(w.buf, kind, ev)
	size := int64(len(w.buf) - n)
	if !always && w.written+size > w.max {
		w.buf = w.buf[:n]
		w.capped = true
		w.skip(kind, ev)
		return
	}
	w.written += size
	w.events++
	w.pending()
}

// pending wakes the file writer when enough is pending, or arms the timer
// that will; it waits while too much is. w.mu held.
func (w *Writer) pending() {
	switch {
	case len(w.buf) >= flushAt:
		w.signal()
	case !w.armed:
		w.armed = true
		w.timer.Reset(flushEvery)
	}
	for len(w.buf) > maxPending && w.err == nil {
		w.room.Wait()
	}
}

func (w *Writer) skip(kind string, ev *judge.Event) {
	if w.unrec == nil {
		w.unrec = map[string]int64{}
	}
	w.unrec[kind]++
	w.unrecBytes += ev.Length
}

// flush is the file writer: it takes what is pending and writes it.
func (w *Writer) flush() {
	defer close(w.done)
	for {
		<-w.wake
		w.mu.Lock()
		out := w.buf
		w.buf, w.spare = w.spare[:0], nil
		w.armed = false
		closed := w.closed
		w.room.Broadcast()
		w.mu.Unlock()
		if len(out) > 0 {
			_, err := w.out.Write(out)
			w.mu.Lock()
			if err != nil && w.err == nil {
				w.err = err
				w.room.Broadcast()
			}
			w.spare = out
			w.mu.Unlock()
		}
		if closed {
			return
		}
	}
}

// Close writes the end line, waits until everything is written and
// returns the first write error. Call it once, after the run.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return fmt.Errorf("trace: writer closed twice")
	}
	end := Event{T: w.since(time.Now()), Ev: KindEnd, Events: w.events, Bytes: w.written, Capped: w.capped,
		Unrecorded: w.unrec, UnrecordedBytes: w.unrecBytes, JudgeCPUUs: processCPU() - w.cpuAtStart}
	if w.capped {
		end.Max = w.max
	}
	b, _ := json.Marshal(end)
	w.buf = append(append(w.buf, b...), '\n')
	w.closed = true
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

// encode appends ev's line. The frequent kinds (line, call, answer, drop)
// are written by hand; the rare ones through encoding/json.
func (w *Writer) encode(dst []byte, kind string, ev *judge.Event) []byte {
	dst = append(dst, `{"t":`...)
	dst = appendInt(dst, w.since(ev.At))
	dst = append(dst, `,"ev":"`...)
	dst = append(dst, kind...)
	dst = append(dst, `"`...)
	switch ev.Kind {
	case judge.EventLine, judge.EventCallOpened, judge.EventCallClosed, judge.EventDrop, judge.EventSideExit, judge.EventLM:
		dst = append(dst, `,"side":"`...)
		dst = append(dst, ev.Side.String()...)
		dst = append(dst, '"')
	}
	switch ev.Kind {
	case judge.EventLine:
		return appendLine(dst, ev)
	case judge.EventCallOpened, judge.EventCallClosed:
		dst = append(dst, `,"id":`...)
		dst = appendString(dst, ev.ID)
		if ev.Name != nil {
			dst = append(dst, `,"fn":`...)
			dst = appendString(dst, ev.Name)
		}
		if ev.Kind == judge.EventCallClosed {
			dst = append(dst, `,"outcome":"`...)
			dst = append(dst, ev.Outcome.String()...)
			dst = append(dst, `","us":`...)
			dst = appendInt(dst, ev.Took.Microseconds())
		}
	case judge.EventDrop:
		dst = append(dst, `,"reason":"`...)
		dst = append(dst, ev.Reason.String()...)
		dst = append(dst, '"')
	case judge.EventRestart:
		dst = append(dst, `,"n":`...)
		dst = appendInt(dst, int64(ev.Restarts))
	case judge.EventSideExit:
		dst = appendMember(dst, "exit", ev.Exit)
	case judge.EventLM:
		dst = appendMember(dst, "lm", ev.LM)
	case judge.EventVerdict:
		dst = appendMember(dst, "result", ev.Result)
	}
	return append(dst, "}\n"...)
}

func appendMember(dst []byte, name string, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		b = appendString(nil, []byte("trace: cannot encode: "+err.Error()))
	}
	dst = append(dst, `,"`...)
	dst = append(dst, name...)
	dst = append(dst, `":`...)
	return append(dst, b...)
}

func appendLine(dst []byte, ev *judge.Event) []byte {
	line := ev.Line
	cut := ev.Length > int64(len(line))
	if len(line) > maxPayload {
		line, cut = line[:maxPayload], true
	}
	dst = append(dst, `,"kind":"`...)
	dst = append(dst, ev.LineKind.String()...)
	dst = append(dst, `","len":`...)
	dst = appendInt(dst, ev.Length)
	if cut {
		dst = append(dst, `,"cut":true`...)
	}
	if ev.LineKind == dual.Framed && !cut {
		n := len(dst)
		dst = append(dst, `,"frame":`...)
		if out, ok := appendFrame(dst, line); ok {
			return append(out, "}\n"...)
		}
		dst = dst[:n]
	}
	dst = append(dst, `,"text":`...)
	dst = appendString(dst, line)
	return append(dst, "}\n"...)
}
