package dual

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// unpolled moves f's pipe out of the Go runtime's netpoller: it returns a
// non-blocking file for a duplicate of f's descriptor that the runtime does
// not watch, and closes f. The poller reads it instead of f because the
// runtime registers a pipe with epoll for good: every line a peer writes
// into a watched pipe wakes whichever runtime thread sleeps in epoll_wait,
// though no goroutine waits there (the poller reads without the runtime),
// which costs one OS thread wake-up per frame. Closing f is what drops the
// registration.
func unpolled(f *os.File) (*os.File, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	dup := -1
	var dupErr error
	if err := rc.Control(func(fd uintptr) {
		dup, dupErr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return nil, err
	}
	if dupErr != nil {
		return nil, fmt.Errorf("dual: duplicating %s: %w", f.Name(), dupErr)
	}
	// The duplicate shares the pipe's O_NONBLOCK, and os.NewFile registers
	// a non-blocking descriptor with the netpoller: it must see a blocking
	// one. Nobody reads f meanwhile (the relay owns it), and on failure f
	// is left as it was.
	if err := syscall.SetNonblock(dup, false); err != nil {
		syscall.Close(dup)
		return nil, fmt.Errorf("dual: %s: %w", f.Name(), err)
	}
	nf := os.NewFile(uintptr(dup), f.Name())
	if err := syscall.SetNonblock(dup, true); err != nil {
		nf.Close()
		return nil, fmt.Errorf("dual: %s: %w", f.Name(), err)
	}
	f.Close()
	return nf, nil
}
