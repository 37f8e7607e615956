// Package testlines reads, for a test, what a program or the other end of
// a connection writes, a line at a time, waiting for each with a bound
// (Reader), or all at once when the test is ready to look (Buffer).
package testlines

import (
	"bufio"
	"bytes"
	"io"
	"sync"
	"testing"
	"time"
)

// Wait bounds how long Next waits for a line: generous, for a loaded
// machine; a test that passes does not wait for it.
const Wait = 30 * time.Second

// Reader hands out the lines read from one stream, in order.
type Reader struct {
	t     testing.TB
	lines chan []byte
}

// Read reads r line by line from a goroutine until r ends or fails. The
// test ends r (closes the connection, ends the process) in a cleanup of
// its own registered after Read; Read's cleanup, which runs after it,
// drops the lines nobody read and waits for the goroutine.
func Read(t testing.TB, r io.Reader) *Reader {
	l := &Reader{t: t, lines: make(chan []byte, 1024)}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer close(l.lines)
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				select {
				case l.lines <- bytes.TrimSuffix(line, []byte("\n")):
				case <-stop:
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		<-done
	})
	return l
}

// Next is the next line, without its '\n'; t fails if the stream ends
// first or no line comes within Wait.
func (l *Reader) Next() []byte {
	l.t.Helper()
	select {
	case line, ok := <-l.lines:
		if !ok {
			l.t.Fatal("the stream ended while a line was awaited")
		}
		return line
	case <-time.After(Wait):
		l.t.Fatalf("no line came within %v", Wait)
	}
	return nil
}

// Buffer keeps what several goroutines write (a logger's lines, a
// connection's output) for the test to read when it is ready.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is all that was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
