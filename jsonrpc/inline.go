package jsonrpc

import (
	"sync/atomic"
	"time"
)

// Running a request on the reading goroutine.
//
// With one call in flight, handing each request to a handler goroutine
// costs more than the rest of the round trip: the reader wakes a parked
// goroutine, often on another OS thread, and that wake-up is several
// microseconds on a VM. So when a request arrives alone (nothing running
// or queued, nothing more buffered to read, a running slot free) the
// reader runs its handler and writes the answer itself, as a hand-written
// server would.
//
// While it does, nobody reads, and a handler may need the reader: to get
// the answer of a call to its peer, a $/cancelRequest, or a peer blocked
// writing to us until we read. So the reading role moves to a new
// goroutine (handOff) as soon as the handler calls its peer or asks for
// ctx.Done(), and otherwise once a handler has run inline across two looks
// of a watchdog that looks every inlineWatch while inline runs happen. The
// old reader finishes its request and stops. Nothing here is tunable: the
// watchdog only bounds how long reading can stall.

// inlineWatch is the watchdog's period: a handler that has run inline for
// between one and two periods hands reading off. A hand-off costs a
// goroutine and a wake-up, about 1% of a period.
const inlineWatch = time.Millisecond

// inline states
const (
	inlineIdle      int32 = iota
	inlineRunning         // the reader runs a handler; nobody reads
	inlineHandedOff       // another goroutine reads; the old reader finishes its handler
)

type inliner struct {
	state atomic.Int32
	runs  atomic.Uint64 // inline runs begun, so the watchdog can tell one run from the next
	armed atomic.Bool   // the watchdog's timer is set
	seen  atomic.Uint64 // runs, at the watchdog's last look
	timer *time.Timer   // set by the first inline run; readers only, and the watchdog
	next  *inflight     // reader only: the request to run once its frame is handled
}

// soleChannel is a Channel that can serve a lone request on its reader:
// it says when its next Read would wait for the peer, and writes a frame
// at once, without waiting for others to share the Write.
type soleChannel interface {
	drained() bool
	writeNow(frame []byte) error
}

// tryInline decides, on the reader, whether in (admitted and registered)
// runs inline once its frame is handled; it takes in's running slots if
// so.
func (c *Conn) tryInline(in *inflight) bool {
	if c.sole == nil || c.outstanding.Load() != 1 || c.inl.state.Load() != inlineIdle || !c.sole.drained() {
		return false
	}
	if !c.takeSlots(in, true, false) {
		return false
	}
	c.inl.next = in
	return true
}

// runInline runs the request tryInline kept, on the reader. It reports
// whether this goroutine is still the reader; if not, another goroutine
// took over reading while the handler ran.
func (c *Conn) runInline() bool {
	in := c.inl.next
	c.inl.next = nil
	c.inl.runs.Add(1)
	c.inl.state.Store(inlineRunning)
	c.watchInline()
	c.run(in, true)
	c.release(int64(cap(in.buf)))
	if c.inl.state.CompareAndSwap(inlineRunning, inlineIdle) {
		return true
	}
	c.inl.state.Store(inlineIdle)
	return false
}

// active says whether a handler runs on the reader, or on the reader it
// handed reading off from.
func (inl *inliner) active() bool { return inl.state.Load() != inlineIdle }

// handOff gives reading to a new goroutine if the reader is running a
// handler inline; the old reader is waited for like a handler goroutine.
// Safe from any goroutine.
func (c *Conn) handOff() {
	if c.inl.state.Load() != inlineRunning || !c.inl.state.CompareAndSwap(inlineRunning, inlineHandedOff) {
		return
	}
	c.workerWG.Add(1)
	go c.readLoop()
}

// watchInline sets the watchdog's timer unless it is set.
func (c *Conn) watchInline() {
	if c.inl.armed.Load() || !c.inl.armed.CompareAndSwap(false, true) {
		return
	}
	if c.inl.timer == nil {
		c.inl.timer = time.AfterFunc(time.Hour, c.inlineLook) // set for real below, once stored
	}
	c.inl.timer.Reset(inlineWatch)
}

// inlineLook is the watchdog: it hands reading off from a handler that has
// run inline since its last look, and looks again while inline runs go on.
func (c *Conn) inlineLook() {
	runs := c.inl.runs.Load()
	last := c.inl.seen.Swap(runs)
	running := c.inl.state.Load() == inlineRunning
	if running && runs == last {
		c.handOff()
		running = false
	}
	c.inl.armed.Store(false)
	// A run that began after the loads above re-arms the timer itself, or
	// is seen here: one of the two arms it.
	if (running || runs != last || c.inl.runs.Load() != runs) && c.inl.armed.CompareAndSwap(false, true) {
		c.inl.timer.Reset(inlineWatch)
	}
}

// stopInline stops the watchdog once reading has ended.
func (c *Conn) stopInline() {
	if c.inl.timer != nil {
		c.inl.timer.Stop()
	}
}
