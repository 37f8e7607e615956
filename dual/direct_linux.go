package dual

import (
	"io"
	"syscall"
)

// directWriter returns a function that writes to w's pipe without
// blocking, for writeQueue.putDirect, or nil when w is not a non-blocking
// file descriptor (io.Pipe, a blocking fd): those always go through the
// writer goroutine. Writing in the reader goroutine when the pipe has room
// saves a goroutine hand-off per frame; anything the pipe does not take at
// once, and any error, is left to the writer goroutine, which reports it.
func directWriter(w io.Writer) func([]byte) int {
	sc, ok := w.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	nonblocking := false
	rc.Control(func(fd uintptr) {
		flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		nonblocking = errno == 0 && flags&syscall.O_NONBLOCK != 0
	})
	if !nonblocking {
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
