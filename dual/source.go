package dual

import (
	"io"
	"syscall"

	"github.com/tether-dev/tether/wire"
)

// polledSource is one side's stdout read by the poller: a non-blocking
// pipe whose Read never waits.
type polledSource struct {
	c    *conn
	raw  syscall.RawConn
	lr   *wire.LineReader
	room [2]*writeQueue // the queues its lines go to: its own side's and the other's (nil when none)
	done bool           // its end (EOF or an error) was seen

	// One read's buffer and outcome, so that a read, which the poller makes
	// on every pass while it spins, allocates nothing.
	rawRead func(fd uintptr) bool
	p       []byte
	n       int
	err     error
}

func newPolledSource(c *conn, raw syscall.RawConn, maxLine int) *polledSource {
	s := &polledSource{c: c, raw: raw}
	s.lr = wire.NewLineReader(s, maxLine)
	s.rawRead = s.readFD
	return s
}

// Read reads what the pipe holds now: wire.ErrWouldBlock when it holds
// nothing, io.EOF when every writer has closed it.
func (s *polledSource) Read(p []byte) (int, error) {
	s.p = p
	cerr := s.raw.Read(s.rawRead)
	n, err := s.n, s.err
	s.p, s.err = nil, nil
	switch {
	case cerr != nil:
		return 0, cerr
	case err == syscall.EAGAIN:
		return 0, wire.ErrWouldBlock
	case err != nil:
		return 0, err
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}

func (s *polledSource) readFD(fd uintptr) bool {
	for {
		s.n, s.err = syscall.Read(int(fd), s.p)
		if s.err != syscall.EINTR {
			return true // never wait in the Go runtime's poller: ours waits
		}
	}
}

// readable reports whether the poller should read s now: not at its end,
// and every queue its lines may go to under its limit (back-pressure: what
// a side cannot take stays in the sender's pipe).
func (s *polledSource) readable() bool {
	if s.done {
		return false
	}
	for _, q := range s.room {
		if q != nil && !q.hasRoom() {
			return false
		}
	}
	return true
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
