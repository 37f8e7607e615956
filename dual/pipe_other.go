//go:build !linux

package dual

import (
	"io"
	"syscall"
)

// pipeSize is what w's pipe may hold; the sizes vary here, so the most.
func pipeSize(w io.Writer) int64 {
	if _, ok := w.(syscall.Conn); ok {
		return 1 << 20
	}
	return 0
}

// nonBlockingWriter is nil here: the conn's flush writes every stdin.
func nonBlockingWriter(io.Writer) func([]byte) int { return nil }
