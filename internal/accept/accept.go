// Package accept hands out a listener's connections without falling over:
// an accept that fails for want of file descriptors or memory is retried
// after a pause (as net/http does), and past a cap of open connections a new
// one is closed at once, so a flood of clients cannot take the server's
// descriptors or end it.
package accept

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// DefaultMaxConns is the cap of open connections when none is given.
const DefaultMaxConns = 1024

// Listener wraps a net.Listener. Its Accept returns only when it has a
// connection under the cap, or the listener is closed (or fails for good).
type Listener struct {
	net.Listener
	max     int64
	open    atomic.Int64
	refused atomic.Int64

	closeOnce sync.Once
	closed    chan struct{}
}

// New caps ln at maxConns open connections (DefaultMaxConns when <= 0).
func New(ln net.Listener, maxConns int) *Listener {
	if maxConns <= 0 {
		maxConns = DefaultMaxConns
	}
	return &Listener{Listener: ln, max: int64(maxConns), closed: make(chan struct{})}
}

// Accept waits for a connection. Out of descriptors (EMFILE, ENFILE) or
// buffers, it pauses, 5 ms doubling to 1 s, and tries again; a connection
// over the cap is closed and not returned.
func (l *Listener) Accept() (net.Conn, error) {
	var pause time.Duration
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			if !Temporary(err) {
				return nil, err
			}
			pause = min(max(2*pause, 5*time.Millisecond), time.Second)
			t := time.NewTimer(pause)
			select {
			case <-t.C:
			case <-l.closed:
				t.Stop()
				return nil, net.ErrClosed
			}
			continue
		}
		pause = 0
		if l.open.Add(1) > l.max {
			l.open.Add(-1)
			l.refused.Add(1)
			c.Close()
			continue
		}
		return &conn{Conn: c, l: l}, nil
	}
}

// Close closes the listener and ends a pause in Accept.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// Open is the number of connections accepted and not yet closed.
func (l *Listener) Open() int { return int(l.open.Load()) }

// Refused is the number of connections closed for being over the cap.
func (l *Listener) Refused() int64 { return l.refused.Load() }

// Temporary reports an accept error worth retrying: out of descriptors or
// buffers, a connection aborted before it was accepted, or a timeout.
func Temporary(err error) bool {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
		syscall.ECONNABORTED, syscall.EINTR, syscall.EAGAIN} {
		if errors.Is(err, errno) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// conn gives its slot back once when closed.
type conn struct {
	net.Conn
	l    *Listener
	once sync.Once
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}
