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

func waitReadable([]int) error { return errors.New("dual: no poller on this system") }

func unpolled(f *os.File) (*os.File, error) { return f, nil }

func yieldCPU() {}
