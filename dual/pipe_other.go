//go:build !linux

package dual

import (
	"io"
	"os"
	"syscall"
	"time"
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

// pollsPipes: here every stdout is read through a feed, so the stubs below are never called.
const pollsPipes = false

func newWakeFD() (int, error)           { return -1, nil }
func wakeFD(int)                        {}
func closeFD(int)                       {}
func pollPipes([]int)                   {}
func unpolled(*os.File) (int, error)    { return -1, nil }
func readPipe(int, []byte) (int, error) { return 0, io.EOF }
func maxSpin() time.Duration            { return 0 }
func yieldCPU()                         {}
