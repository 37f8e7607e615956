//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"runtime"
)

// Linux is the "linux" runner; off Linux it cannot be made.
type Linux struct{}

// NewLinux always fails off Linux: the sandbox needs Linux namespaces and cgroups.
func NewLinux(*LinuxOptions) (*Linux, error) { return nil, errUnavailable() }

// Kind implements Runner.
func (*Linux) Kind() string { return "linux" }

// Close releases nothing: no runner can exist here.
func (*Linux) Close() error { return nil }

// Start implements Runner; it always fails.
func (*Linux) Start(context.Context, Spec) (Process, error) { return nil, errUnavailable() }

func errUnavailable() error {
	return fmt.Errorf("%w on this OS (%s)", ErrLinuxUnavailable, runtime.GOOS)
}

// CheckNetwork says what a sandbox with Spec.Network needs: off Linux, no
// runner gives one.
func CheckNetwork() error { return errUnavailable() }

// SystemPath reports whether a sandbox shows the host path p: off Linux
// only the plain runner exists, which shows every path.
func SystemPath(string) bool { return true }
