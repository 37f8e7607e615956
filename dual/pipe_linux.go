package dual

import (
	"io"
	"syscall"

	"golang.org/x/sys/unix"
)

// pipeSize is the capacity of w's pipe (F_GETPIPE_SZ), 0 when w is not a
// file descriptor or not a pipe.
func pipeSize(w io.Writer) int64 {
	size := 0
	if sc, ok := w.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			rc.Control(func(fd uintptr) { size, _ = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0) })
		}
	}
	return int64(max(size, 0))
}

// nonBlockingWriter writes into w's pipe without blocking, or is nil when
// w is not a non-blocking file descriptor (io.Pipe, a blocking fd).
// Anything the pipe does not take at once, and any error, is left to the
// conn's flush.
func nonBlockingWriter(w io.Writer) func([]byte) int {
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
