package wire

import (
	"bytes"
	"io"
	"sync"
)

// keepWriteBuffer bounds the scratch buffer a LineWriter keeps between
// writes; a larger frame gets a buffer of its own that is then let go.
const keepWriteBuffer = 64 << 10

// LineWriter writes newline-delimited frames. It is safe for concurrent use.
type LineWriter struct {
	mu      sync.Mutex // serializes frames; guards scratch
	w       io.Writer
	flusher interface{ Flush() error }
	scratch []byte
}

// NewLineWriter returns a writer of lines to w. If w has a Flush() error
// method (a *bufio.Writer, say), it is called after every line.
func NewLineWriter(w io.Writer) *LineWriter {
	lw := &LineWriter{w: w}
	lw.flusher, _ = w.(interface{ Flush() error })
	return lw
}

// WriteLine writes p and "\n" in one Write call. p must not contain '\n'.
func (lw *LineWriter) WriteLine(p []byte) error {
	if bytes.IndexByte(p, '\n') >= 0 {
		return ErrNewline
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	buf := lw.scratch[:0]
	if len(p)+1 > keepWriteBuffer {
		buf = make([]byte, 0, len(p)+1)
	}
	buf = append(append(buf, p...), '\n')
	if cap(buf) <= keepWriteBuffer {
		lw.scratch = buf
	}
	if _, err := lw.w.Write(buf); err != nil {
		return err
	}
	if lw.flusher != nil {
		return lw.flusher.Flush()
	}
	return nil
}
