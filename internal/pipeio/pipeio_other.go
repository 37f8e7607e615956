//go:build !linux

package pipeio

import (
	"io"
	"os"
	"syscall"
	"time"
)

// Size is what w's pipe may hold; the sizes vary here, so the most.
func Size(w io.Writer) int64 {
	if _, ok := w.(syscall.Conn); ok {
		return 1 << 20
	}
	return 0
}

// NonBlockingWriter is nil here: the conn's flush writes every stdin.
func NonBlockingWriter(io.Writer) func([]byte) int { return nil }

// Polls: here every stdout is read through a feed, so the stubs below are never called.
const Polls = false

func NewWakeFD() (int, error)        { return -1, nil }
func Wake(int)                       {}
func Close(int)                      {}
func Poll([]int)                     {}
func Unpolled(*os.File) (int, error) { return -1, nil }
func Read(int, []byte) (int, error)  { return 0, io.EOF }
func MaxSpin() time.Duration         { return 0 }
func Yield()                         {}
