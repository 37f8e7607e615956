//go:build !linux

package sandbox

import (
	"errors"
	"os"
)

// Diagnose looks at this machine: off Linux only "none" can run.
func Diagnose() Diagnosis {
	unavailable := errors.New("needs Linux")
	return diagnose(machine{
		euid:          os.Geteuid(),
		readFile:      func(string) (string, error) { return "", unavailable },
		cgroups:       func() (string, []string, string) { return "", nil, "" },
		makeCgroup:    func() error { return unavailable },
		probeUserNS:   func() error { return unavailable },
		python:        pythonVersion,
		newLinux:      func() (Runner, error) { return nil, unavailable },
		newRootless:   func() (Runner, error) { return nil, unavailable },
		probeOutbound: func() (string, error) { return "", unavailable },
	})
}
