package dual

import (
	"io"
	"syscall"

	"golang.org/x/sys/unix"
)

// directWriter returns a function that writes to w's pipe without
// blocking, for writeQueue.putDirect, or nil when w is not a non-blocking
// file descriptor (io.Pipe, a blocking fd): those always go through the
// writer goroutine. Writing in the reader goroutine when the pipe has room
// saves a goroutine hand-off per frame; anything the pipe does not take at
// once, and any error, is left to the writer goroutine, which reports it.
func directWriter(w io.Writer) func([]byte) int {
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
			return true // never wait for the poller here
		})
		return written
	}
}

// pipeSize is the capacity of w's pipe (F_GETPIPE_SZ), 0 when w is not a
// file descriptor or not a pipe.
func pipeSize(w io.Writer) int64 {
	sc, ok := w.(syscall.Conn)
	if !ok {
		return 0
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0
	}
	var size int
	rc.Control(func(fd uintptr) {
		if n, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0); err == nil {
			size = n
		}
	})
	return int64(size)
}

// nonBlockingFD returns v's raw file descriptor when v is a file in
// non-blocking mode (an *os.File pipe from os.Pipe), else nil.
func nonBlockingFD(v any) syscall.RawConn {
	sc, ok := v.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	nonblocking := false
	rc.Control(func(fd uintptr) {
		flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		nonblocking = err == nil && flags&unix.O_NONBLOCK != 0
	})
	if !nonblocking {
		return nil
	}
	return rc
}

// waitReadable blocks until one of fds is readable or has hung up.
func waitReadable(fds []int) error {
	pfds := make([]unix.PollFd, len(fds))
	for i, fd := range fds {
		pfds[i] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	}
	for {
		_, err := unix.Poll(pfds, -1)
		if err != unix.EINTR {
			return err
		}
	}
}

// yieldCPU lets any thread waiting for this CPU run first: the poller
// spins only on time nobody else wants, so a peer the kernel woke onto the
// poller's CPU runs at once instead of waiting out the spin.
func yieldCPU() {
	syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
}
