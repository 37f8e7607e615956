package dual

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/pipeio"

	"github.com/tether-dev/tether/wire"
)

// reading is the poller's state: poll reads both stdouts (a pipe on Linux
// through a descriptor the runtime does not watch, anything else through a
// feed), routes and sends, and polls a while (spinWindow) before it sleeps,
// so a round trip through quick peers wakes no relay thread. Only the
// poller reads or closes the descriptors it polls.
type reading struct {
	srcs    []*source // guarded by Relay.mu, as is started
	started bool

	wakeMu sync.Mutex
	wakeFD int           // an eventfd (Linux) that ends the poll(2)
	open   bool          // wakeFD is open
	woken  chan struct{} // ends a sleep without a pipe to poll
}

// source is one stdout the poller reads.
type source struct {
	c        *conn
	fd       int   // a pipe, or -1: feed holds what was read
	feed     *feed // the stdout is not a pipe the poller polls
	lr       *wire.LineReader
	stopped  bool // guarded by Relay.mu: the poller closes it next
	done     bool // its end (EOF or an error) was seen
	readable bool // not done, and the conns its lines go to have room (back-pressure)
}

// start has the poller read c's stdout, starting the poller first if it
// is not running yet. Called with r.mu held.
func (r *Relay) start(c *conn) {
	p := &r.rd
	if !p.started {
		fd, err := pipeio.NewWakeFD()
		if err != nil {
			r.fatal = fmt.Errorf("dual: making the relay's eventfd: %w", err)
			r.signal()
			return
		}
		p.started, p.wakeFD, p.open, p.woken = true, fd, true, make(chan struct{}, 1)
		r.wg.Add(1)
		go r.poll()
	}
	s := &source{c: c, fd: -1}
	if f, ok := c.ep.Stdout.(*os.File); ok && pipeio.Polls {
		fd, err := pipeio.Unpolled(f)
		if err != nil {
			r.sourceEnded(c, err)
			return
		}
		s.fd = fd
	} else {
		s.feed = r.startFeed(c.ep.Stdout)
	}
	s.lr = wire.NewLineReader(s, r.cfg.MaxLine)
	p.srcs = append(p.srcs, s)
	p.wake()
}

// stopReading has the poller close c's stdout, and closes the original
// (which ends a feed's Read). r.mu held.
func (r *Relay) stopReading(c *conn) {
	for _, s := range r.rd.srcs {
		if s.c == c && !s.stopped {
			if s.stopped = true; s.feed != nil {
				close(s.feed.stop)
			}
		}
	}
	r.rd.wake()
	c.ep.Stdout.Close()
}

// wake ends the poller's sleep: a source stopped or has input, or a conn
// wrote or closed (a source held back for want of room may be readable).
func (p *reading) wake() {
	p.wakeMu.Lock()
	if p.open {
		pipeio.Wake(p.wakeFD)
		select {
		case p.woken <- struct{}{}:
		default:
		}
	}
	p.wakeMu.Unlock()
}

// poll is the poller goroutine; it returns when the run closes.
func (r *Relay) poll() {
	defer r.wg.Done()
	p := &r.rd
	defer func() {
		p.wakeMu.Lock()
		p.open = false
		pipeio.Close(p.wakeFD)
		p.wakeMu.Unlock()
	}()
	var srcs []*source
	var out outgoing
	spin := spinWindow{max: pipeio.MaxSpin()}
	last := time.Now() // when the last line was read
	slept := false     // since then
	rescheduled := last
	for {
		var open bool
		if srcs, open = r.sources(srcs[:0]); !open {
			return
		}
		progress, pipes := false, false
		for _, s := range srcs {
			pipes = pipes || s.fd >= 0
			if s.readable && r.drain(s, &out) {
				progress = true
			}
		}
		now := time.Now()
		if now.Sub(rescheduled) > reschedule {
			// A goroutine that runs for 10 ms on end is preempted by the
			// runtime's monitor thread, which then polls every 20 µs for a
			// while: on a busy machine those wake-ups cost the peers more.
			runtime.Gosched()
			rescheduled = now
		}
		switch {
		case progress:
			if slept {
				spin.adapt(now.Sub(last))
			}
			last, slept = now, false
		case slept || !pipes || now.Sub(last) >= spin.cur:
			p.sleep(srcs)
			slept = true
			continue
		}
		if spin.cur > 0 {
			pipeio.Yield() // a peer the lines went to may have been woken onto this CPU
		}
	}
}

// sources closes the stopped sources and appends the others to dst, each
// marked readable or not; false, once every source is closed, when the
// run is over.
func (r *Relay) sources(dst []*source) ([]*source, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := &r.rd
	kept := p.srcs[:0]
	for _, s := range p.srcs {
		if s.stopped || r.closed {
			if s.fd >= 0 {
				pipeio.Close(s.fd)
			}
		} else {
			kept = append(kept, s)
		}
	}
	clear(p.srcs[len(kept):])
	p.srcs = kept
	for _, s := range kept {
		peer := r.conns[s.c.side.Other()]
		s.readable = !s.done && s.c.hasRoom() && (peer == nil || peer.hasRoom())
		dst = append(dst, s)
	}
	return dst, !r.closed
}

// drain routes the whole lines one read of s brings in (more reads only
// to complete a line, up to maxKept bytes, so one flooding side neither
// starves the other nor overfills a conn), sends the frames and makes the
// hook calls queued. The lines of one read arrived together: they share
// one reading of the clock. It reports whether it read anything.
func (r *Relay) drain(s *source, out *outgoing) bool {
	read, ok := 0, true
	var err error
	r.mu.Lock()
	now := time.Now()
	for read < maxKept {
		var line []byte
		if line, err = s.lr.ReadLine(); err == wire.ErrWouldBlock {
			break
		}
		read += len(line) + 1
		if ok = r.routeLocked(s.c, line, err, now, out); !ok || s.lr.Buffered() == 0 {
			break
		}
	}
	queued := len(r.queued.events) > 0
	r.mu.Unlock()
	r.send(out)
	if queued {
		r.tell()
	}
	if !ok {
		s.done = true
		r.sourceEnded(s.c, err)
	}
	return read > 0
}

// sleep waits until a readable source has input or hangs up, or a wake
// comes (a feed's input is one): in poll(2) when there are pipes to poll,
// else on woken (where synctest, too, sees the wait).
func (p *reading) sleep(srcs []*source) {
	var fds []int
	for _, s := range srcs {
		if s.readable && s.fd >= 0 {
			fds = append(fds, s.fd)
		}
	}
	if len(fds) == 0 {
		<-p.woken
		return
	}
	pipeio.Poll(append(fds, p.wakeFD))
}

// Read reads what the source holds now: wire.ErrWouldBlock when it holds
// nothing, io.EOF (or the read's error) at its end.
func (s *source) Read(b []byte) (int, error) {
	if s.feed != nil {
		return s.feed.Read(b)
	}
	return pipeio.Read(s.fd, b)
}

// feed carries to the poller, a chunk at a time, what a goroutine of the
// run reads from a stdout the poller does not poll (an io.Pipe); the
// goroutine waits while two chunks are untaken.
type feed struct {
	chunks chan []byte // closed once err is set
	err    error
	rest   []byte // the poller's: what it has not taken of a chunk
	stop   chan struct{}
}

func (r *Relay) startFeed(src io.Reader) *feed {
	f := &feed{chunks: make(chan []byte, 2), stop: make(chan struct{})}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer r.rd.wake()
		defer close(f.chunks)
		for {
			b := make([]byte, 16<<10)
			n, err := src.Read(b)
			if n > 0 {
				select {
				case f.chunks <- b[:n]:
					r.rd.wake()
				case <-f.stop:
					return
				}
			}
			if f.err = err; err != nil {
				return
			}
		}
	}()
	return f
}

// Read takes what the feed holds: wire.ErrWouldBlock when it holds
// nothing yet, the stdout's error once it holds nothing more.
func (f *feed) Read(b []byte) (int, error) {
	if len(f.rest) == 0 {
		select {
		case c, ok := <-f.chunks:
			if !ok {
				return 0, f.err
			}
			f.rest = c
		default:
			return 0, wire.ErrWouldBlock
		}
	}
	n := copy(b, f.rest)
	f.rest = f.rest[n:]
	return n, nil
}

// spinWindow is how long the poller polls before it sleeps, adapted to
// the gaps between lines as KVM adapts its halt polling: a gap the window
// just missed, yet no longer than max, grows it; a longer one shrinks it.
type spinWindow struct{ cur, max time.Duration }

// minSpin is the first window after none; reschedule is how often the
// poller passes through the Go scheduler while it keeps busy (see poll).
const minSpin, reschedule = 5 * time.Microsecond, time.Millisecond

// adapt learns from a gap of idle after which the poller had to sleep.
func (w *spinWindow) adapt(idle time.Duration) {
	if idle > w.max {
		if w.cur /= 2; w.cur < minSpin {
			w.cur = 0
		}
		return
	}
	w.cur = min(max(2*w.cur, minSpin), w.max)
}
