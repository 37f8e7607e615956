//go:build unix

package judge

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// signalName is the conventional name of signal n, e.g. "SIGKILL".
func signalName(n int) string {
	if name := unix.SignalName(unix.Signal(n)); name != "" {
		return name
	}
	return fmt.Sprintf("signal %d", n)
}
