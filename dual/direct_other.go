//go:build !linux

package dual

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// Only Linux reads and writes pipes without blocking; elsewhere every side
// has a reader goroutine and a writer goroutine, and the poller never runs.

func directWriter(io.Writer) func([]byte) int { return nil }

func nonBlockingFD(any) syscall.RawConn { return nil }

// pipeSize is what a pipe may hold here; the sizes vary, so the most.
func pipeSize(w io.Writer) int64 {
	if _, ok := w.(syscall.Conn); ok {
		return 1 << 20
	}
	return 0
}

func waitReadable([]int) error { return errors.New("dual: no poller on this system") }

func unpolled(f *os.File) (*os.File, error) { return f, nil }

func yieldCPU() {}
