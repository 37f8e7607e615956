package peer

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync"
)

// errNewline: a frame must be one line.
var errNewline = errors.New("peer: frame contains a newline")

// lineWriter writes frames, one per line, combining concurrent writes:
// the first writer to find the pipe idle becomes the flusher and writes
// everything queued by the time it gets there, in one Write; writers that
// arrive meanwhile only queue and return. The flusher yields before
// taking the batch (again while that brings more lines) so that
// goroutines already runnable can join it. A lone caller pays one Write
// and no hand-off; 64 callers in flight share a few Writes.
//
// A queued line may still be unwritten when WriteLine returns; Flush waits
// until everything queued is written. Safe for concurrent use.
type lineWriter struct {
	w io.Writer

	mu      sync.Mutex // guards the fields below
	idle    *sync.Cond // signalled when a flush ends
	queued  []byte
	spare   []byte
	writing bool
	err     error // first Write error; every later call returns it
}

// maxFlushYields bounds the flusher's yields. BenchmarkRelay (package
// judge, 64 calls in flight) needed about a fifth fewer writes with 2-4
// than with 1, and no more CPU.
const maxFlushYields = 3

func newLineWriter(w io.Writer) *lineWriter {
	lw := &lineWriter{w: w}
	lw.idle = sync.NewCond(&lw.mu)
	return lw
}

// WriteLine queues p and "\n"; p is copied.
func (lw *lineWriter) WriteLine(p []byte) error {
	if bytes.IndexByte(p, '\n') >= 0 {
		return errNewline
	}
	lw.mu.Lock()
	if lw.err != nil {
		err := lw.err
		lw.mu.Unlock()
		return err
	}
	lw.queued = append(append(lw.queued, p...), '\n')
	if lw.writing {
		lw.mu.Unlock()
		return nil
	}
	lw.writing = true
	// Let the goroutines that are ready to run (other calls finishing)
	// queue their lines first, so a burst leaves in one Write: fewer system
	// calls here, and fewer wake-ups of the reader on the other end. Yield
	// again while yielding brought more lines, up to maxFlushYields times.
	// With nothing else runnable this costs one Gosched, which returns at
	// once.
	for yields, before := 0, -1; yields < maxFlushYields && len(lw.queued) != before; yields++ {
		before = len(lw.queued)
		lw.mu.Unlock()
		runtime.Gosched()
		lw.mu.Lock()
	}
	for len(lw.queued) > 0 && lw.err == nil {
		batch := lw.queued
		lw.queued = lw.spare[:0]
		lw.mu.Unlock()
		_, err := lw.w.Write(batch)
		lw.mu.Lock()
		if err != nil {
			lw.err = err
		}
		if cap(batch) <= 1<<20 { // keep a modest buffer for reuse
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

// Flush waits until every queued line is written, and reports the first
// write error.
func (lw *lineWriter) Flush() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	for lw.writing && lw.err == nil {
		lw.idle.Wait()
	}
	return lw.err
}
