package jsonrpc

import (
	"errors"
	"net"
	"sync/atomic"
	"time"

	"github.com/tether-dev/tether/wire"
)

// Defaults of the per-connection timeouts of Serve.
const (
	defaultIdleTimeout  = 5 * time.Minute
	defaultReadTimeout  = 30 * time.Second
	defaultWriteTimeout = 30 * time.Second
)

func durationOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// heldChannel is a Channel whose reader can charge a wire.Pool and say
// whether it is inside a message (both framings of this package).
type heldChannel interface {
	setHold(h *wire.Hold)
	partial() bool
}

func (c *lineChannel) setHold(h *wire.Hold)  { c.r.SetHold(h) }
func (c *lineChannel) partial() bool         { return c.r.Partial() }
func (c *frameChannel) setHold(h *wire.Hold) { c.r.SetHold(h) }
func (c *frameChannel) partial() bool        { return c.r.Partial() }

// guardedConn is a connection of Serve with its timeouts: waiting for the
// next message, it may wait IdleTimeout (for ever while requests of it run
// or its calls wait for answers); once a message has begun, the whole of
// it must arrive within ReadTimeout; each write must finish within
// WriteTimeout. A peer that stalls is cut off, so it holds neither memory
// nor a descriptor for long.
type guardedConn struct {
	net.Conn
	idle, read, write time.Duration
	partial           func() bool // set before reading starts
	conn              atomic.Pointer[Conn]
	began             time.Time // when the message being read began; reader only
}

func (g *guardedConn) inMessage() bool { return g.partial != nil && g.partial() }

func (g *guardedConn) Read(p []byte) (int, error) {
	for {
		now := time.Now()
		if g.inMessage() {
			if g.began.IsZero() {
				g.began = now
			}
			g.Conn.SetReadDeadline(g.began.Add(g.read))
		} else {
			g.began = time.Time{}
			g.Conn.SetReadDeadline(now.Add(g.idle))
		}
		n, err := g.Conn.Read(p)
		var ne net.Error
		if n == 0 && errors.As(err, &ne) && ne.Timeout() && !g.inMessage() {
			if c := g.conn.Load(); c != nil && c.busy() {
				continue // idle, but its requests still run: not idle
			}
		}
		return n, err
	}
}

func (g *guardedConn) Write(p []byte) (int, error) {
	g.Conn.SetWriteDeadline(time.Now().Add(g.write))
	return g.Conn.Write(p)
}

// busy reports requests running or queued, or calls waiting for answers.
func (c *Conn) busy() bool {
	if c.outstanding.Load() > 0 {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending) > 0 || len(c.running) > 0
}
