//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/criyle/go-sandbox/pkg/cgroup"
)

// Diagnose looks at this machine: its user, kernel features and Python,
// and whether each runner can be made here (it makes them, and closes them).
func Diagnose() Diagnosis {
	return diagnose(machine{
		euid: os.Geteuid(),
		readFile: func(p string) (string, error) {
			b, err := os.ReadFile(p)
			return strings.TrimSpace(string(b)), err
		},
		cgroups:       hostCgroups,
		makeCgroup:    probeCgroups,
		seccomp:       seccompSupported(),
		landlockABI:   landlockABI(),
		python:        pythonVersion,
		probeUserNS:   probeUserNamespaces,
		newLinux:      runnerMaker(func() (*Linux, error) { return NewLinux(nil) }),
		newRootless:   runnerMaker(NewRootless),
		probeOutbound: probeOutbound,
	})
}

// probeCgroups makes and removes a sandbox cgroup where the linux runner
// would make them.
func probeCgroups() error {
	l, err := detectCgroups()
	if err != nil {
		return err
	}
	return l.probe()
}

// hostCgroups reads, without changing anything, the cgroup version, the
// controllers the judge could give its sandboxes, and where.
func hostCgroups() (version string, have []string, where string) {
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", nil, ""
	}
	lines := strings.Split(strings.TrimSpace(string(own)), "\n")
	if cgroup.DetectType() == cgroup.TypeV2 {
		for _, line := range lines {
			if p, ok := strings.CutPrefix(line, "0::"); ok {
				where = filepath.Join(cgroupRoot, p)
			}
		}
		b, _ := os.ReadFile(filepath.Join(where, "cgroup.controllers"))
		return "v2", strings.Fields(string(b)), where
	}
	for _, line := range lines {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) == 3 && parts[1] != "" {
			for _, c := range strings.Split(parts[1], ",") {
				if !strings.HasPrefix(c, "name=") {
					have = append(have, c)
				}
			}
		}
	}
	return "v1", have, cgroupRoot
}
