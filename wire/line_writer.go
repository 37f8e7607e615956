package wire

import (
	"bytes"
	"io"
	"runtime"
	"sync"
)

// keepWriteBuffer bounds the buffer a LineWriter keeps between writes; a
// larger batch is let go once written.
const keepWriteBuffer = 64 << 10

// maxFlushYields bounds how often the flusher yields before it takes a
// batch. With 64 calls in flight, 2-4 yields needed about a fifth fewer
// writes than 1, and no more CPU (BenchmarkRelay in package judge).
const maxFlushYields = 3

// LineWriter writes newline-delimited frames, combining concurrent writes:
// the first writer to find the stream idle becomes the flusher and writes
// everything queued by the time it gets there in one Write; writers that
// arrive meanwhile only queue and return. A lone caller pays one Write and
// no hand-off; many callers in flight share a few Writes, so the reader on
// the other end is woken less often.
//
// A caller that knows no other line is on its way uses WriteLineNow, which
// does not yield first: a yield wakes an idle OS thread to look for work,
// which costs a lone caller more than its Write.
//
// A line may still be unwritten when WriteLine returns (another caller is
// writing it); Flush waits until everything queued is written. Safe for
// concurrent use. The first Write error sticks: every later call returns it.
type LineWriter struct {
	w       io.Writer
	flusher interface{ Flush() error } // w's, when w buffers (a *bufio.Writer)

	mu      sync.Mutex // guards the fields below
	idle    *sync.Cond // signalled when a flush ends
	queued  []byte
	spare   []byte
	writing bool
	err     error
}

// NewLineWriter returns a writer of lines to w. If w has a Flush() error
// method (a *bufio.Writer, say), it is called after every Write.
func NewLineWriter(w io.Writer) *LineWriter {
	lw := &LineWriter{w: w}
	lw.flusher, _ = w.(interface{ Flush() error })
	lw.idle = sync.NewCond(&lw.mu)
	return lw
}

// WriteLine queues p and "\n" (p is copied) and, unless another caller is
// writing already, writes the queue, once goroutines ready to run have
// queued their lines. p must not contain '\n'.
func (lw *LineWriter) WriteLine(p []byte) error { return lw.writeLines(maxFlushYields, p) }

// WriteLineNow is WriteLine without waiting for other lines to join: for a
// caller with nothing else in flight.
func (lw *LineWriter) WriteLineNow(p []byte) error { return lw.writeLines(0, p) }

// WriteLines is WriteLine for lines that must stay together: they are
// queued at once, so no other caller's line comes between them and they
// leave in one Write.
func (lw *LineWriter) WriteLines(ps ...[]byte) error { return lw.writeLines(maxFlushYields, ps...) }

func (lw *LineWriter) writeLines(maxYields int, ps ...[]byte) error {
	for _, p := range ps {
		if bytes.IndexByte(p, '\n') >= 0 {
			return ErrNewline
		}
	}
	lw.mu.Lock()
	if lw.err != nil {
		err := lw.err
		lw.mu.Unlock()
		return err
	}
	for _, p := range ps {
		lw.queued = append(append(lw.queued, p...), '\n')
	}
	if lw.writing {
		lw.mu.Unlock()
		return nil
	}
	lw.writing = true
	// Let goroutines that are ready to run (other calls finishing) queue
	// their lines first, so a burst leaves in one Write. Yield again while
	// yielding brought more lines. With nothing else runnable a Gosched
	// returns at once.
	for yields, before := 0, -1; yields < maxYields && len(lw.queued) != before; yields++ {
		before = len(lw.queued)
		lw.mu.Unlock()
		runtime.Gosched()
		lw.mu.Lock()
	}
	for len(lw.queued) > 0 && lw.err == nil {
		batch := lw.queued
		lw.queued = lw.spare[:0]
		lw.mu.Unlock()
		err := lw.write(batch)
		lw.mu.Lock()
		if err != nil {
			lw.err = err
		}
		if cap(batch) <= keepWriteBuffer {
			lw.spare = batch[:0]
		} else {
			lw.spare = nil
		}
	}
	lw.writing = false
	err := lw.err
	lw.idle.Broadcast()
	lw.mu.Unlock()
	return err
}

func (lw *LineWriter) write(batch []byte) error {
	if _, err := lw.w.Write(batch); err != nil {
		return err
	}
	if lw.flusher != nil {
		return lw.flusher.Flush()
	}
	return nil
}

// Flush waits until every queued line is written, and reports the first
// write error.
func (lw *LineWriter) Flush() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	for lw.writing && lw.err == nil {
		lw.idle.Wait()
	}
	return lw.err
}
