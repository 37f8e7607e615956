package dual

import (
	"errors"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tether-dev/tether/wire"
)

// poller reads every side whose stdout is a non-blocking pipe, on one
// goroutine: it routes what each pipe holds, writes the sends, and after
// the last line polls the pipes again for up to spin before it sleeps in
// poll(2). A round trip through the relay then costs no wake-up of the
// relay's own thread while frames keep coming, and no hand-off between
// goroutines (each would be a wake-up of an OS thread when a P is idle).
type poller struct {
	r      *Relay
	spin   time.Duration
	wakeR  *os.File // a byte here ends a poll(2): the polled set changed, a queue has room, the run ends
	wakeW  *os.File
	wakeFD syscall.RawConn
	gen    atomic.Uint64 // bumped, before a wake, whenever the polled set changes
}

// errNoPoller: the system gives no non-blocking pipe for the wake; the
// sides are then read by reader goroutines.
var errNoPoller = errors.New("dual: no non-blocking pipe for the poller")

func newPoller(r *Relay, spin time.Duration) (*poller, error) {
	rd, wr, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	raw := nonBlockingFD(rd)
	if raw == nil || nonBlockingFD(wr) == nil {
		rd.Close()
		wr.Close()
		return nil, errNoPoller
	}
	return &poller{r: r, spin: spin, wakeR: rd, wakeW: wr, wakeFD: raw}, nil
}

// changed tells the poller its set of sources changed; the caller has
// changed it under r.mu. The wake comes after the bump, and the poller
// drains wakes before it looks at gen, so neither is missed.
func (p *poller) changed() {
	p.gen.Add(1)
	p.wake()
}

// wake ends the poller's poll(2), or its next one. A full wake pipe
// already holds a wake.
func (p *poller) wake() {
	p.wakeW.Write([]byte{0})
}

// close releases the wake pipe once the poller goroutine has returned.
func (p *poller) close() {
	p.wakeR.Close()
	p.wakeW.Close()
}

// run is the poller goroutine; it returns when the run closes.
func (p *poller) run() {
	defer p.r.wg.Done()
	var srcs []*polledSource
	seen := p.gen.Load() - 1
	sends := make([]pendingSend, 0, 4) // non-nil: dispatchLocked returns the sends to put
	spin := spinWindow{max: p.spin}
	last := time.Now() // when the last line was read
	slept := false     // since then
	rescheduled := last
	for {
		if g := p.gen.Load(); g != seen {
			seen = g
			var open bool
			if srcs, open = p.r.polledSources(srcs[:0]); !open {
				p.r.putSends(&sends, false)
				return
			}
		}
		progress := false
		for _, s := range srcs {
			if s.readable() && p.drain(s, &sends) {
				progress = true
			}
		}
		now := time.Now()
		if now.Sub(rescheduled) > reschedule {
			// A goroutine that runs for 10 ms on end is preempted by the
			// runtime's monitor thread, which then polls every 20 µs for a
			// while: on a busy machine those wake-ups cost the peers more
			// than this does.
			runtime.Gosched()
			rescheduled = now
		}
		if progress {
			if slept {
				spin.adapt(now.Sub(last))
			}
			last, slept = now, false
			if spin.cur > 0 {
				yieldCPU() // a peer the lines went to may have been woken onto this CPU
			}
			continue
		}
		if !slept && now.Sub(last) < spin.cur {
			yieldCPU()
			continue
		}
		p.sleep(srcs, seen)
		slept = true
	}
}

// drain routes the lines s holds now, up to maxBatch bytes of them (so one
// flooding side neither starves the other nor overfills a queue between two
// checks of its room), and puts the sends. It reports whether it read any.
func (p *poller) drain(s *polledSource, sends *[]pendingSend) bool {
	read := 0
	for read < maxBatch {
		line, err := s.lr.ReadLine()
		if err == wire.ErrWouldBlock {
			break
		}
		read += len(line) + 1
		if !p.r.route(s.c, line, err, sends) {
			s.done = true
			p.r.putSends(sends, false)
			p.r.sourceEnded(s.c, err)
			break
		}
		if s.lr.Buffered() == 0 {
			break // what one read brought goes out before the next read
		}
	}
	p.r.putSends(sends, false)
	return read > 0
}

// spinWindow is how long the poller polls before it sleeps, adapted to
// the gaps between lines the way KVM adapts its halt polling: a gap the
// window just missed, yet no longer than max, grows it; a longer gap,
// which spinning could not have caught, shrinks it. A relay whose peers
// answer slower than max stops spinning; one between quick peers spins
// up to max after each line.
type spinWindow struct {
	cur, max time.Duration
}

// reschedule is how often the poller goroutine passes through the Go
// scheduler while it keeps busy (see run).
const reschedule = time.Millisecond

// minSpin is the first window after none.
const minSpin = 5 * time.Microsecond

// adapt learns from a gap of idle after which the poller had to sleep.
func (w *spinWindow) adapt(idle time.Duration) {
	if idle > w.max {
		if w.cur /= 2; w.cur < minSpin {
			w.cur = 0
		}
		return
	}
	if w.cur = max(2*w.cur, minSpin); w.cur > w.max {
		w.cur = w.max
	}
}

// sleep waits in poll(2) until a readable source has input or hangs up, or
// a wake, unless the polled set changed since seen. The sources' fds are
// held open (Control) while it waits, so a Close of one waits for the wake
// the closer sends first (see changed).
func (p *poller) sleep(srcs []*polledSource, seen uint64) {
	var raws []syscall.RawConn
	for _, s := range srcs {
		if s.readable() {
			raws = append(raws, s.raw)
		}
	}
	raws = append(raws, p.wakeFD)
	fds := make([]int, 0, len(raws))
	var hold func(i int)
	hold = func(i int) {
		if i == len(raws) {
			if p.gen.Load() == seen {
				waitReadable(fds)
			}
			return
		}
		raws[i].Control(func(fd uintptr) {
			fds = append(fds, int(fd))
			hold(i + 1)
		}) // an error: the fd is closing; gen has changed, the next pass sees it
	}
	hold(0)
	var buf [64]byte
	p.wakeFD.Read(func(fd uintptr) bool {
		for {
			if n, _ := syscall.Read(int(fd), buf[:]); n < len(buf) {
				return true
			}
		}
	})
}

// defaultSpin is how long the poller keeps polling after the last line it
// read before it sleeps: longer than a round trip through a quick peer, so
// a run of calls keeps the relay awake, and short enough that an idle
// relay costs at most this much CPU per frame. With one CPU, spinning only
// takes time from the processes it waits for.
func defaultSpin() time.Duration {
	if runtime.NumCPU() < 2 {
		return 0
	}
	return DefaultSpin
}
