//go:build !linux

package sandbox

import "errors"

type cpuMask struct{}

// cpuSet: CPU affinity is Linux-only.
func cpuSet(cpus []int) (*cpuMask, error) {
	if len(cpus) == 0 {
		return nil, nil
	}
	return nil, errors.New("sandbox: CPUs: CPU affinity is Linux-only")
}

func startOnCPUs(_ *cpuMask, start func() error) error { return start() }

// CheckCPUs reports whether cpus (a Spec.CPUs) can be used here: only an
// empty list off Linux.
func CheckCPUs(cpus []int) error {
	_, err := cpuSet(cpus)
	return err
}
