package dual

import (
	"io"
	"os"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tether-dev/tether/wire"
)

// poller is the Linux pump. One goroutine reads every stdout that is a
// non-blocking pipe (both sandbox runners give those; any other stdout
// gets a reader goroutine): it routes what each pipe holds, puts the
// sends, and after the last line polls the pipes again for a while (see
// spinWindow) before it sleeps in poll(2). A round trip through the relay
// then costs no wake-up of the relay's own thread while frames keep
// coming, and no hand-off between goroutines. Only this goroutine reads or
// closes the pipes it polls, so none is closed under its poll(2).
type poller struct {
	r       *Relay
	wakeFD  int             // an eventfd: a write ends the poll(2) (a source stopped, a queue has room)
	srcs    []*polledSource // guarded by r.mu, as is started
	started bool
	pfds    []unix.PollFd
}

// polledSource is one stdout the poller reads.
type polledSource struct {
	c        *conn
	fd       int
	lr       *wire.LineReader
	stopped  bool // guarded by r.mu: the poller closes it next
	done     bool // its end (EOF or an error) was seen
	readable bool // not done, and the queues its lines go to have room (back-pressure)
}

func newPump(r *Relay) pump {
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return goroutines{r}
	}
	return &poller{r: r, wakeFD: fd}
}

func (p *poller) read(c *conn) {
	c.q.onRoom = p.wake
	fd := -1
	if f, ok := c.ep.Stdout.(*os.File); ok && nonBlockingFD(f) != nil {
		fd = unpolled(f)
	}
	if fd < 0 {
		goroutines{p.r}.read(c)
		return
	}
	if !p.started {
		p.started = true
		p.r.wg.Add(1)
		go p.run()
	}
	s := &polledSource{c: c, fd: fd}
	s.lr = wire.NewLineReader(s, p.r.cfg.MaxLine)
	p.srcs = append(p.srcs, s)
	p.wake()
}

func (p *poller) stop(c *conn) {
	for _, s := range p.srcs {
		if s.c == c {
			s.stopped = true
			p.wake()
			return
		}
	}
	c.ep.Stdout.Close()
}

func (p *poller) wake() {
	unix.Write(p.wakeFD, []byte{1, 0, 0, 0, 0, 0, 0, 0})
}

func (p *poller) close() { unix.Close(p.wakeFD) }

// writer writes into w's pipe without blocking, or is nil when w is not a
// non-blocking file descriptor (io.Pipe, a blocking fd). Anything the pipe
// does not take at once, and any error, is left to the writer goroutine.
func (p *poller) writer(w io.Writer) func([]byte) int {
	rc := nonBlockingFD(w)
	if rc == nil {
		return nil
	}
	return func(b []byte) int {
		written := 0
		rc.Write(func(fd uintptr) bool {
			for written < len(b) {
				n, err := syscall.Write(int(fd), b[written:])
				if n <= 0 || err != nil {
					break // EAGAIN (full), EPIPE, ...: the writer goroutine takes over
				}
				written += n
			}
			return true // never wait in the runtime's poller
		})
		return written
	}
}

// run is the poller goroutine; it returns when the run closes.
func (p *poller) run() {
	defer p.r.wg.Done()
	var srcs []*polledSource
	sends := make([]pendingSend, 0, 4)
	spin := spinWindow{max: maxSpin()}
	last := time.Now() // when the last line was read
	slept := false     // since then
	rescheduled := last
	for {
		var open bool
		if srcs, open = p.sources(srcs[:0]); !open {
			return
		}
		progress := false
		for _, s := range srcs {
			if s.readable && p.drain(s, &sends) {
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
		case slept || now.Sub(last) >= spin.cur:
			p.sleep(srcs)
			slept = true
			continue
		}
		if spin.cur > 0 {
			yieldCPU() // a peer the lines went to may have been woken onto this CPU
		}
	}
}

// sources closes the stopped sources and appends the others to dst, each
// marked readable or not; false, once every source is closed, when the run
// is over.
func (p *poller) sources(dst []*polledSource) ([]*polledSource, bool) {
	r := p.r
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := p.srcs[:0]
	for _, s := range p.srcs {
		if s.stopped || r.closed {
			unix.Close(s.fd)
		} else {
			kept = append(kept, s)
		}
	}
	clear(p.srcs[len(kept):])
	p.srcs = kept
	for _, s := range kept {
		peer := r.conns[s.c.side.Other()]
		s.readable = !s.done && s.c.q.hasRoom() && (peer == nil || peer.q.hasRoom())
		dst = append(dst, s)
	}
	return dst, !r.closed
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
			p.r.tell()
			p.r.sourceEnded(s.c, err)
			return true
		}
		if s.lr.Buffered() == 0 {
			break // what one read brought goes out before the next read
		}
	}
	p.r.putSends(sends, false)
	p.r.tell()
	return read > 0
}

// sleep waits in poll(2) until a readable source has input or hangs up,
// or a wake comes.
func (p *poller) sleep(srcs []*polledSource) {
	p.pfds = p.pfds[:0]
	for _, s := range srcs {
		if s.readable {
			p.pfds = append(p.pfds, unix.PollFd{Fd: int32(s.fd), Events: unix.POLLIN})
		}
	}
	p.pfds = append(p.pfds, unix.PollFd{Fd: int32(p.wakeFD), Events: unix.POLLIN})
	for {
		if _, err := unix.Poll(p.pfds, -1); err != unix.EINTR {
			break
		}
	}
	var buf [8]byte
	unix.Read(p.wakeFD, buf[:])
}

// Read reads what the pipe holds now: wire.ErrWouldBlock when it holds
// nothing, io.EOF when every writer has closed it.
func (s *polledSource) Read(b []byte) (int, error) {
	for {
		n, err := syscall.Read(s.fd, b)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return 0, wire.ErrWouldBlock
		case err != nil:
			return 0, err
		case n == 0 && len(b) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
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

// minSpin is the first window after none; reschedule is how often the
// poller passes through the Go scheduler while it keeps busy (see run).
const (
	minSpin    = 5 * time.Microsecond
	reschedule = time.Millisecond
)

// maxSpin is the longest window: longer than a round trip through a quick
// peer, so a run of calls keeps the relay awake, and short enough that an
// idle relay costs at most this much CPU per frame. With one CPU, spinning
// only takes time from the processes it waits for.
func maxSpin() time.Duration {
	if runtime.NumCPU() < 2 {
		return 0
	}
	return 200 * time.Microsecond
}

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

// unpolled returns a duplicate of f's descriptor that the Go runtime's
// netpoller does not watch, and closes f; -1, leaving f, if it cannot. The
// runtime registers a pipe with epoll for good: every line a peer writes
// into a watched pipe would wake whichever runtime thread sleeps in
// epoll_wait, though no goroutine waits there (the poller reads without
// the runtime). The duplicate shares f's O_NONBLOCK.
func unpolled(f *os.File) int {
	fd := -1
	if rc := rawConn(f); rc != nil {
		rc.Control(func(u uintptr) { fd, _ = unix.FcntlInt(u, unix.F_DUPFD_CLOEXEC, 0) })
	}
	if fd >= 0 {
		f.Close()
	}
	return fd
}

// pipeSize is the capacity of w's pipe (F_GETPIPE_SZ), 0 when w is not a
// file descriptor or not a pipe.
func pipeSize(w io.Writer) int64 {
	size := 0
	if rc := rawConn(w); rc != nil {
		rc.Control(func(fd uintptr) { size, _ = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0) })
	}
	return int64(max(size, 0))
}

// nonBlockingFD returns v's raw file descriptor when v is a file in
// non-blocking mode (an *os.File pipe from os.Pipe), else nil.
func nonBlockingFD(v any) syscall.RawConn {
	flags := 0
	rc := rawConn(v)
	if rc != nil {
		rc.Control(func(fd uintptr) { flags, _ = unix.FcntlInt(fd, unix.F_GETFL, 0) })
	}
	if flags < 0 || flags&unix.O_NONBLOCK == 0 {
		return nil
	}
	return rc
}

// rawConn is v's raw file descriptor, nil when it has none.
func rawConn(v any) syscall.RawConn {
	if sc, ok := v.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			return rc
		}
	}
	return nil
}

// yieldCPU lets any thread waiting for this CPU run first: the poller
// spins only on time nobody else wants, so a peer the kernel woke onto the
// poller's CPU runs at once instead of waiting out the spin.
func yieldCPU() {
	syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
}
