package sandbox

import (
	"errors"
	"strings"
	"testing"
)

// A machine that offers no sandbox: not root, user namespaces switched off
// by AppArmor, cgroup v2 without the cpu controller delegated, an old
// kernel and an old Python. Each missing piece comes with its fix, and auto
// falls back to none.
func TestDiagnoseMachineWithoutSandboxes(t *testing.T) {
	sysctls := map[string]string{
		"/proc/sys/user/max_user_namespaces":                     "15000",
		"/proc/sys/kernel/apparmor_restrict_unprivileged_userns": "1",
	}
	d := diagnose(machine{
		euid: 1000,
		readFile: func(p string) (string, error) {
			if v, ok := sysctls[p]; ok {
				return v, nil
			}
			return "", errors.New("no such file")
		},
		cgroups: func() (string, []string, string) {
			return "v2", []string{"memory", "pids"}, "/sys/fs/cgroup/user.slice"
		},
		makeCgroup:  func() error { t.Fatal("made a cgroup without the controllers"); return nil },
		seccomp:     true,
		landlockABI: 3,
		python:      func() (string, string, error) { return "/usr/bin/python3", "3.8.10", nil },
		probeUserNS: func() error { return errors.New("operation not permitted") },
		newLinux:    func() (Runner, error) { return nil, errors.New("not running as root") },
		newRootless: func() (Runner, error) { return nil, errors.New("no user namespaces") },
		probeOutbound: func() (string, error) {
			return "", errors.New("no slirp4netns and no nft on this machine")
		},
	})
	if d.Auto != "none" {
		t.Errorf("auto = %q, want none", d.Auto)
	}
	for _, s := range []string{"NO SANDBOX", "not running as root", "no user namespaces", "fix: run `tether doctor`"} {
		if !strings.Contains(d.Warning, s) {
			t.Errorf("warning %q lacks %q", d.Warning, s)
		}
	}
	want := map[string]string{
		"root":            "sudo tether",
		"user_namespaces": "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
		"cgroups":         "echo '+cpu' | sudo tee /sys/fs/cgroup/user.slice/cgroup.subtree_control",
		"landlock":        "lsm=landlock",
		"python":          "apt-get install -y python3",
		"sandbox_network": "apt-get install -y slirp4netns nftables",
	}
	for _, c := range d.Checks {
		fix, missing := want[c.Name]
		if c.OK == missing {
			t.Errorf("%s: ok = %v (found %q)", c.Name, c.OK, c.Found)
		}
		if missing && !strings.Contains(c.Fix, fix) {
			t.Errorf("%s: fix %q, want it to hold %q", c.Name, c.Fix, fix)
		}
		if c.Found == "" || len(c.NeededBy) == 0 {
			t.Errorf("%s: found %q, needed by %v", c.Name, c.Found, c.NeededBy)
		}
		delete(want, c.Name)
	}
	if len(want) != 0 {
		t.Errorf("no check for %v", want)
	}
	for _, s := range d.Sandboxes[:2] {
		if s.Available || s.Why == "" {
			t.Errorf("%+v: want unavailable, with why", s)
		}
	}
}

// Controllers listed are not a working sandbox cgroup (issue 32: doctor
// said "cgroups ok" and every run then failed to make one): the check
// makes and removes one, and says why it could not.
func TestDiagnoseCgroupsThatCannotBeMade(t *testing.T) {
	for _, c := range []struct {
		made error
		ok   bool
		says string
	}{
		{nil, true, "made and removed a sandbox cgroup"},
		{errors.New("cgroup v2: make /sys/fs/cgroup/judge.slice/tether/1-2-3: device or resource busy"), false, "making a sandbox cgroup failed: cgroup v2: make /sys/fs/cgroup/judge.slice/tether/1-2-3: device or resource busy"},
	} {
		d := diagnose(machine{
			euid:     0,
			readFile: func(string) (string, error) { return "", errors.New("no such file") },
			cgroups: func() (string, []string, string) {
				return "v2", []string{"cpu", "memory", "pids"}, "/sys/fs/cgroup/judge.slice"
			},
			makeCgroup:    func() error { return c.made },
			python:        func() (string, string, error) { return "/usr/bin/python3", "3.11.2", nil },
			probeUserNS:   func() error { return nil },
			newLinux:      func() (Runner, error) { return nil, errors.New("no") },
			newRootless:   func() (Runner, error) { return nil, errors.New("no") },
			probeOutbound: func() (string, error) { return "", errors.New("no") },
		})
		for _, check := range d.Checks {
			if check.Name != "cgroups" {
				continue
			}
			if check.OK != c.ok || !strings.Contains(check.Found, c.says) || (!c.ok && !strings.Contains(check.Fix, "Delegate=yes")) {
				t.Errorf("make error %v: got %+v; want ok %v, found saying %q", c.made, check, c.ok, c.says)
			}
		}
	}
}

func TestVersionAtLeast(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
	}{{"3.9", true}, {"3.9.0", true}, {"3.11.7", true}, {"3.8.10", false}, {"2.7", false}, {"4.0", true}, {"3", false}} {
		if got := versionAtLeast(tc.v, "3.9"); got != tc.want {
			t.Errorf("%s >= 3.9: %v", tc.v, got)
		}
	}
}

// The sandbox_network check says what gives sandboxes the network, or
// that evaluators asking for it fail, with the packages that fix it.
func TestSandboxNetworkCheck(t *testing.T) {
	ok := sandboxNetworkCheck(func() (string, error) { return "/usr/bin/slirp4netns and /usr/sbin/nft", nil })
	if !ok.OK || ok.Fix != "" || !strings.Contains(ok.Found, "slirp4netns") || !strings.Contains(ok.Found, "outbound only") {
		t.Errorf("available: %+v", ok)
	}
	missing := sandboxNetworkCheck(func() (string, error) { return "", errors.New("no nft on this machine") })
	if missing.OK || !strings.Contains(missing.Found, "no nft on this machine") || !strings.Contains(missing.Found, "network.enabled") ||
		!strings.Contains(missing.Fix, "slirp4netns nftables") {
		t.Errorf("missing: %+v", missing)
	}
}
