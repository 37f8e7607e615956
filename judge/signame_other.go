//go:build !unix

package judge

import "fmt"

// signalName is the signal's number as text: only unix names signals.
func signalName(n int) string { return fmt.Sprintf("signal %d", n) }
