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
