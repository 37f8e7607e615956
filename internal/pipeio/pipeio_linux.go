package pipeio

import (
	"io"
	"os"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tether-dev/tether/wire"
)

// Size is the capacity of w's pipe (F_GETPIPE_SZ), 0 when w is not a
// file descriptor or not a pipe.
func Size(w io.Writer) int64 {
	size := 0
	if sc, ok := w.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			rc.Control(func(fd uintptr) { size, _ = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0) })
		}
	}
	return int64(max(size, 0))
}

// NonBlockingWriter writes into w's pipe without blocking, or is nil when
// w is not a non-blocking file descriptor (io.Pipe, a blocking fd).
// Anything the pipe does not take at once, and any error, is left to the
// conn's flush.
func NonBlockingWriter(w io.Writer) func([]byte) int {
	sc, ok := w.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	flags := 0
	rc.Control(func(fd uintptr) { flags, _ = unix.FcntlInt(fd, unix.F_GETFL, 0) })
	if flags < 0 || flags&unix.O_NONBLOCK == 0 {
		return nil
	}
	return func(b []byte) int {
		written := 0
		rc.Write(func(fd uintptr) bool {
			for written < len(b) {
				n, err := syscall.Write(int(fd), b[written:])
				if n <= 0 || err != nil {
					break // EAGAIN (full), EPIPE, ...: flush takes over
				}
				written += n
			}
			return true // never wait in the runtime's poller
		})
		return written
	}
}

// Polls: the poller reads pipes itself, without the runtime.
const Polls = true

// NewWakeFD makes the poller's eventfd, which Wake makes readable.
func NewWakeFD() (int, error) { return unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC) }
func Wake(fd int)             { unix.Write(fd, []byte{1, 0, 0, 0, 0, 0, 0, 0}) }
func Close(fd int)            { unix.Close(fd) }

// Poll waits in poll(2) until one of fds has input or hangs up, and
// then empties the last, the wake eventfd, which ends the wait too.
func Poll(fds []int) {
	pfds := make([]unix.PollFd, len(fds))
	for i, fd := range fds {
		pfds[i] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	}
	for {
		if _, err := unix.Poll(pfds, -1); err != unix.EINTR {
			break
		}
	}
	var buf [8]byte
	unix.Read(fds[len(fds)-1], buf[:])
}

// Unpolled returns a non-blocking duplicate of f's descriptor that the
// runtime does not watch (it would wake a runtime thread for every line a
// peer writes), and closes f.
func Unpolled(f *os.File) (int, error) {
	fd, err := -1, error(nil)
	if rc, cerr := f.SyscallConn(); cerr != nil {
		err = cerr
	} else {
		rc.Control(func(u uintptr) { fd, err = unix.FcntlInt(u, unix.F_DUPFD_CLOEXEC, 0) })
	}
	if err == nil {
		if err = unix.SetNonblock(fd, true); err != nil {
			unix.Close(fd)
		}
	}
	f.Close()
	return fd, err
}

// Read reads what the pipe fd holds now: wire.ErrWouldBlock when it
// holds nothing, io.EOF when every writer has closed it.
func Read(fd int, b []byte) (int, error) {
	for {
		n, err := syscall.Read(fd, b)
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

// MaxSpin is the longest window: longer than a round trip through a quick
// peer, so a run of calls keeps the relay awake, and short enough that an
// idle relay costs at most this much CPU per frame. With one CPU, spinning
// only takes time from the processes it waits for.
func MaxSpin() time.Duration {
	if runtime.NumCPU() < 2 {
		return 0
	}
	return 200 * time.Microsecond
}

// Yield lets any thread waiting for this CPU run first: the poller
// spins only on time nobody else wants, so a peer the kernel woke onto the
// poller's CPU runs at once instead of waiting out the spin.
func Yield() {
	syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
}
