package dual

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tether-dev/tether/internal/pipeio"
)

// conn is one process's pipes and the frames accepted for its stdin and
// not yet written. A send into an idle conn writes what the pipe takes at
// once, without blocking, on the sender's goroutine (the poller, right
// after routing what one read brought in, as a plain line forwarder
// would); what the pipe does not take waits in pending, and a goroutine
// of the conn (flush) writes it, and whatever is sent meanwhile, blocking
// as long as it must. A stdin that is not a non-blocking pipe (writeNow
// nil) is written by flush alone. Frames sent while a write is under way
// join the bytes written next, so a burst costs one write.
type conn struct {
	r        *Relay
	side     Side
	ep       Endpoint
	writeNow func([]byte) int // writes what the pipe takes now without blocking; nil if it cannot
	gone     bool             // guarded by Relay.mu

	mu      sync.Mutex
	pending []byte // accepted, not yet written
	spare   []byte // flush's last buffer, reused for pending
	writing bool   // a sender or flush is writing: others only add to pending
	closed  bool
	limit   int // pending bytes beyond which the poller reads no more for c

	// Positions in the byte stream of the stdin: in counts the bytes
	// accepted, out those written into the pipe, unaskedEnd where the last
	// frame the solution sent unasked (Action.Unasked) ended, and slack is
	// how much the pipe holds unread at most.
	in, out, unaskedEnd, slack int64

	busySince atomic.Int64 // 1 + ns since Relay.base when flush's current write began; 0 when idle
	stall     *time.Timer  // fires WriteStall after flush's write began

	// exitMu serializes the readers of ep.Exited (the end of stdout and a
	// failed write may both ask); exit keeps what it said for the other.
	exitMu sync.Mutex
	exit   string
}

func newConn(r *Relay, side Side, ep Endpoint) *conn {
	c := &conn{r: r, side: side, ep: ep, writeNow: pipeio.NonBlockingWriter(ep.Stdin), limit: r.cfg.QueueBytes,
		slack: pipeio.Size(ep.Stdin)}
	c.stall = time.AfterFunc(time.Hour, c.stalled)
	c.stall.Stop()
	return c
}

// send accepts buf (frames with their newlines) for c's stdin. It never
// blocks on the pipe nor waits for room: the poller holds back the reading
// of a side whose lines would go to a full conn (hasRoom). buf stays the
// caller's.
func (c *conn) send(buf []byte, unasked bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	if c.in += int64(len(buf)); unasked {
		c.unaskedEnd = c.in
	}
	if c.writing || c.writeNow == nil {
		c.pending = append(c.pending, buf...)
		c.startFlush()
		return
	}
	c.writing = true
	for batch := buf; ; {
		c.mu.Unlock()
		n := c.writeNow(batch)
		c.mu.Lock()
		c.out += int64(n)
		if n < len(batch) { // the pipe is full: the rest goes first, then what came meanwhile
			c.pending = append(append([]byte(nil), batch[n:]...), c.pending...)
			c.writing = false
			c.startFlush()
			return
		}
		if len(c.pending) == 0 || c.closed {
			c.writing = false
			return
		}
		batch, c.pending = c.pending, nil
	}
}

// hasRoom reports whether fewer than the limit's bytes are pending.
func (c *conn) hasRoom() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending) < c.limit
}

// startFlush has a goroutine write what is pending, unless a write is
// under way or the conn is closed. c.mu held.
func (c *conn) startFlush() {
	if c.writing || c.closed || len(c.pending) == 0 {
		return
	}
	c.writing = true
	c.r.wg.Add(1)
	go func() {
		defer c.r.wg.Done()
		c.flush()
	}()
}

// flush writes what is pending, and what is sent meanwhile, until nothing
// is, blocking while the pipe is full; a failed write, or one blocked for
// WriteStall, makes c gone. The caller set c.writing.
func (c *conn) flush() {
	c.mu.Lock()
	for !c.closed && len(c.pending) > 0 {
		batch := c.pending
		c.pending, c.spare = c.spare[:0], nil
		c.mu.Unlock()
		c.busySince.Store(int64(time.Since(c.r.base)) + 1)
		c.stall.Reset(c.r.cfg.WriteStall)
		n, err := c.ep.Stdin.Write(batch)
		c.stall.Stop()
		c.busySince.Store(0)
		c.mu.Lock()
		c.out += int64(n)
		if cap(batch) <= maxKept {
			c.spare = batch[:0] // one huge frame does not stay pinned
		}
		c.r.rd.wake()
		if err != nil {
			c.writing = false
			c.mu.Unlock()
			// A side that exited breaks its pipe: its exit is the reason.
			c.r.sideGone(c, c.r.exitReason(c, "stdin write failed: "+err.Error()))
			return
		}
	}
	c.writing = false
	c.mu.Unlock()
}

// maxKept is the largest buffer a conn or a reader keeps for reuse.
const maxKept = 64 << 10

// stalled runs WriteStall after a write began: a write still blocked
// makes c gone, unless the stall is the solution's doing.
func (c *conn) stalled() {
	r := c.r
	since := c.busySince.Load()
	if since == 0 || time.Since(r.base)-time.Duration(since-1) < r.cfg.WriteStall {
		return
	}
	if r.stallCausedBySolution(c) {
		c.stall.Reset(r.cfg.WriteStall) // held up, not gone: look again later
		return
	}
	r.sideGone(c, fmt.Sprintf("stdin write blocked for %v", r.cfg.WriteStall))
}

// unaskedUnread reports whether a frame the solution sent unasked may
// still be unread by c's process: not yet written, or among the last
// slack bytes written.
func (c *conn) unaskedUnread() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unaskedEnd > 0 && c.unaskedEnd > c.out-c.slack
}

// close drops what is pending, wakes the poller (c has room now) and closes the
// stdin, which ends a write blocked in it.
func (c *conn) close() {
	c.mu.Lock()
	c.closed = true
	c.pending, c.spare = nil, nil
	c.mu.Unlock()
	c.r.rd.wake()
	c.stall.Stop()
	c.ep.Stdin.Close()
}

// sourceEnded reports c's stdout ended with err. Naming the reason (the
// process's exit, when the endpoint reports it within ExitGrace) may wait,
// so it runs on a goroutine of its own: the other side is read meanwhile.
func (r *Relay) sourceEnded(c *conn, err error) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		reason := "stdout read failed: " + fmt.Sprint(err)
		if err == io.EOF {
			reason = r.exitReason(c, "stdout closed")
		}
		r.sideGone(c, reason)
	}()
}

// exitReason is how c's process ended, when the endpoint reports it within
// ExitGrace, else otherwise.
func (r *Relay) exitReason(c *conn, otherwise string) string {
	if c.ep.Exited == nil {
		return otherwise
	}
	c.exitMu.Lock()
	defer c.exitMu.Unlock()
	if c.exit != "" {
		return c.exit
	}
	t := time.NewTimer(r.cfg.ExitGrace)
	defer t.Stop()
	select {
	case s, ok := <-c.ep.Exited:
		c.exit = "exited"
		if ok && s != "" {
			c.exit = s
		}
		return c.exit
	case <-t.C:
		return otherwise
	case <-r.done:
		return otherwise
	}
}
