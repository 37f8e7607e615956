//go:build !linux

package dual

import (
	"io"
	"syscall"
)

func newPump(r *Relay) pump { return goroutines{r} }

// pipeSize is what a pipe may hold here; the sizes vary, so the most.
func pipeSize(w io.Writer) int64 {
	if _, ok := w.(syscall.Conn); ok {
		return 1 << 20
	}
	return 0
}
