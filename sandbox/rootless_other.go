//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"runtime"
)

// ErrRootlessUnavailable wraps every reason the rootless runner cannot run here.
var ErrRootlessUnavailable = errors.New("rootless sandbox not available")

// Rootless is the "rootless" runner; off Linux it cannot be made.
type Rootless struct{}

// NewRootless always fails off Linux: the sandbox needs user namespaces.
func NewRootless() (*Rootless, error) {
	return nil, fmt.Errorf("%w on this OS (%s)", ErrRootlessUnavailable, runtime.GOOS)
}

// Kind implements Runner.
func (*Rootless) Kind() string { return "rootless" }

// Close releases nothing.
func (*Rootless) Close() error { return nil }

// Start implements Runner; it always fails.
func (*Rootless) Start(context.Context, Spec) (Process, error) {
	return nil, fmt.Errorf("%w on this OS (%s)", ErrRootlessUnavailable, runtime.GOOS)
}
