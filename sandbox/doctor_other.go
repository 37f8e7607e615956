//go:build !linux

package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"strings"
)

// Diagnose looks at this machine: off Linux only "none" can run.
func Diagnose() Diagnosis {
	unavailable := errors.New("needs Linux")
	return diagnose(machine{
		euid:        os.Geteuid(),
		readFile:    func(string) (string, error) { return "", unavailable },
		cgroups:     func() (string, []string, string) { return "", nil, "" },
		probeUserNS: func() error { return unavailable },
		python: func() (string, string, error) {
			path, err := exec.LookPath("python3")
			if err != nil {
				return "", "", err
			}
			out, err := exec.Command(path, "-c", "import platform; print(platform.python_version())").Output()
			return path, strings.TrimSpace(string(out)), err
		},
		newLinux:    func() (Runner, error) { return nil, unavailable },
		newRootless: func() (Runner, error) { return nil, unavailable },
	})
}
