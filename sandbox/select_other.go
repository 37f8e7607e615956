//go:build !linux

package sandbox

import "os"

// MkdirOwnedTemp makes a fresh directory in os.TempDir(); off Linux no
// runner cleans up after a dead judge, so it is an ordinary temp dir.
func MkdirOwnedTemp(label string) (string, error) {
	return os.MkdirTemp("", "tether-"+label+"-*")
}
