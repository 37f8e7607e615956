package solution

import (
	"os"
	"sync"
	"syscall"
)

// stdio keeps the protocol away from what the solution prints: the channel
// runs on private copies of fd 0 and fd 1, fd 0 then reads /dev/null, and
// fd 1 and fd 2 are pipes whose bytes become log frames (stream stdout and
// stderr). So fmt.Println, os.Stdout.Write, a C library's printf or a child
// process can never put bytes on the channel. stderr is also copied to the
// real stderr, so a crash's last words stay visible.
type stdio struct {
	in, out *os.File
	realErr int
	pipes   [2]int // read ends, non-blocking
	mu      sync.Mutex
}

// isolateStdio moves the protocol off fds 0 and 1; nil if it cannot.
func isolateStdio() *stdio {
	in, err1 := dupCloexec(0)
	out, err2 := dupCloexec(1)
	realErr, err3 := dupCloexec(2)
	if err1 != nil || err2 != nil || err3 != nil {
		return nil
	}
	s := &stdio{in: os.NewFile(uintptr(in), "tether-in"), out: os.NewFile(uintptr(out), "tether-out"), realErr: realErr}
	if null, err := syscall.Open("/dev/null", syscall.O_RDWR|syscall.O_CLOEXEC, 0); err == nil {
		syscall.Dup3(null, 0, 0)
		syscall.Close(null)
	}
	for i := range s.pipes {
		var p [2]int
		if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
			return nil
		}
		syscall.Dup3(p[1], i+1, 0) // the copy is inherited by children: their output is logged too
		syscall.Close(p[1])
		syscall.SetNonblock(p[0], true)
		s.pipes[i] = p[0]
	}
	return s
}

func dupCloexec(fd int) (int, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 3)
	if errno != 0 {
		return -1, errno
	}
	return int(r), nil
}

// drain sends what the solution wrote so far as log frames (true if any).
func (s *stdio) drain(h *Host) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	any := false
	buf := make([]byte, 64*1024)
	for i, fd := range s.pipes {
		for {
			n, err := syscall.Read(fd, buf)
			if err == syscall.EINTR {
				continue
			}
			if n <= 0 {
				break
			}
			any = true
			if i == 1 {
				syscall.Write(s.realErr, buf[:n])
			}
			h.Log([]string{"stdout", "stderr"}[i], string(buf[:n])) // the frame mends invalid UTF-8
		}
	}
	return any
}

// pump forwards output written outside any call (other goroutines) as it
// comes; it ends when done is closed and the pipes are drained.
func (s *stdio) pump(h *Host, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		default:
		}
		var set syscall.FdSet
		maxFd := 0
		for _, fd := range s.pipes {
			set.Bits[fd/64] |= 1 << (uint(fd) % 64)
			maxFd = max(maxFd, fd)
		}
		tv := syscall.Timeval{Usec: 100_000} // wakes to see done
		if n, err := syscall.Select(maxFd+1, &set, nil, nil, &tv); err == nil && n > 0 {
			s.drain(h)
		}
	}
}
