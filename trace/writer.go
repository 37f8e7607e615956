package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tether-dev/tether/judge"
)

const (
	flushEvery = 50 * time.Millisecond // the most a recorded event waits for the file
	writeAt    = 256 << 10             // encoded bytes handed to the file writer in one go
	maxPending = 8 << 20               // encoded bytes waiting for the file beyond which Observe waits
	maxSpare   = 2                     // written buffers kept for reuse
)

// Writer records a run as a trace. It is a judge.SelectiveObserver; Close
// it after judge.Run returns to write the end line and flush.
//
// Observe encodes each event as it comes, on the relay's goroutine (which
// tells a trace about its lines once it has forwarded them), into a buffer
// that stays in that CPU's cache: an event's bytes are read once, where
// the relay left them. A goroutine of the writer's own takes the full
// buffers and alone waits for the file. Copying the events for that
// goroutine to encode cost the relay more (bench/RESULTS.md, "trace
// writer"): their bytes crossed CPUs twice.
type Writer struct {
	out   io.Writer
	wake  chan struct{}
	done  chan struct{}
	timer *time.Timer

	mu       sync.Mutex
	room     *sync.Cond // signalled when the file writer has written what was queued
	enc      encoder
	queued   [][]byte // encoded buffers waiting for the file writer, in order
	size     int      // their bytes
	spare    [][]byte // written buffers, for reuse
	armed    bool     // the timer is set
	due      bool     // the timer fired: the file writer takes what the encoder holds
	closed   bool
	closedAt time.Time
	err      error // the first write error; nothing is recorded after it
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
	w := &Writer{out: out, wake: make(chan struct{}, 1), done: make(chan struct{})}
	w.room = sync.NewCond(&w.mu)
	w.timer = time.AfterFunc(time.Hour, func() {
		w.mu.Lock()
		w.due = true
		w.mu.Unlock()
		w.signal()
	})
	w.timer.Stop()
	hdr, err := json.Marshal(h)
	if err != nil {
		panic(err) // strings, ints and a time only
	}
	w.enc = encoder{start: h.Started, max: max, cpuAtStart: processCPU(),
		out: append(append(make([]byte, 0, writeAt+writeAt/4), hdr...), '\n')}
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

// Observe records ev.
func (w *Writer) Observe(ev *judge.Event) {
	if kindOf(ev.Kind) == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.err != nil {
		return
	}
	w.enc.observe(ev)
	switch {
	case len(w.enc.out) >= writeAt:
		w.queue()
		w.signal()
	case !w.armed:
		w.armed = true
		w.timer.Reset(flushEvery)
	}
	for w.size > maxPending && w.err == nil {
		w.room.Wait()
	}
}

// queue moves the encoded lines to the file writer's queue. w.mu held.
func (w *Writer) queue() {
	if len(w.enc.out) == 0 {
		return
	}
	w.queued = append(w.queued, w.enc.out)
	w.size += len(w.enc.out)
	if n := len(w.spare); n > 0 {
		w.enc.out, w.spare = w.spare[n-1], w.spare[:n-1]
	} else {
		w.enc.out = make([]byte, 0, writeAt+writeAt/4)
	}
}

// flush is the file writer: it writes what Observe queued, and on the
// timer or Close what the encoder still holds.
func (w *Writer) flush() {
	defer close(w.done)
	var batch [][]byte
	for {
		<-w.wake
		w.mu.Lock()
		closed := w.closed
		if w.due || closed {
			w.due, w.armed = false, false
			if closed && w.err == nil {
				w.enc.end(w.closedAt)
			}
			w.queue()
		}
		batch, w.queued = w.queued, batch[:0]
		failed := w.err != nil
		w.mu.Unlock()

		var err error
		for _, b := range batch {
			if err == nil && !failed {
				_, err = w.out.Write(b)
			}
		}
		w.mu.Lock()
		for i, b := range batch {
			w.size -= len(b)
			if len(w.spare) < maxSpare {
				w.spare = append(w.spare, b[:0])
			}
			batch[i] = nil
		}
		if err != nil && w.err == nil {
			w.err = err
		}
		w.room.Broadcast()
		w.mu.Unlock()
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
	case judge.EventCompile:
		return KindCompile
	case judge.EventSideStart:
		return KindStart
	}
	return ""
}
