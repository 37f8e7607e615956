package sandbox

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestSelect(t *testing.T) {
	missing := fmt.Errorf("%w: not running as root", ErrLinuxUnavailable)
	unavailable := func() (Runner, error) { return nil, missing }
	available := func() (Runner, error) { return fakeLinux{}, nil }

	if r, w, err := SelectWith("none", available); err != nil || !strings.Contains(w, "NO SANDBOX") || r.Kind() != "none" {
		t.Errorf("none: %v %q %v", r, w, err)
	}
	if r, w, err := SelectWith("linux", available); err != nil || w != "" || r.Kind() != "linux" {
		t.Errorf("linux: %v %q %v", r, w, err)
	}
	if _, _, err := SelectWith("linux", unavailable); !errors.Is(err, ErrLinuxUnavailable) || !strings.Contains(err.Error(), "not running as root") {
		t.Errorf("linux unavailable: %v", err)
	}
	for _, kind := range []string{"auto", ""} {
		if r, w, err := SelectWith(kind, available); err != nil || w != "" || r.Kind() != "linux" {
			t.Errorf("%q available: %v %q %v", kind, r, w, err)
		}
		r, w, err := SelectWith(kind, unavailable)
		if err != nil || r.Kind() != "none" || !strings.Contains(w, "NO SANDBOX") || !strings.Contains(w, "not running as root") {
			t.Errorf("%q unavailable: %v %q %v", kind, r, w, err)
		}
	}
	// auto: linux, else rootless, else none.
	rootless := func() (Runner, error) { return fakeRootless{}, nil }
	noRootless := func() (Runner, error) { return nil, fmt.Errorf("%w: no user namespaces", ErrRootlessUnavailable) }
	if r, w, err := SelectFrom("auto", Makers{Linux: available, Rootless: rootless}); err != nil || w != "" || r.Kind() != "linux" {
		t.Errorf("auto, both: %v %q %v", r, w, err)
	}
	if r, w, err := SelectFrom("auto", Makers{Linux: unavailable, Rootless: rootless}); err != nil || r.Kind() != "rootless" ||
		!strings.Contains(w, "ROOTLESS") || !strings.Contains(w, "not running as root") {
		t.Errorf("auto, rootless only: %v %q %v", r, w, err)
	}
	if r, w, err := SelectFrom("auto", Makers{Linux: unavailable, Rootless: noRootless}); err != nil || r.Kind() != "none" ||
		!strings.Contains(w, "NO SANDBOX") || !strings.Contains(w, "no user namespaces") {
		t.Errorf("auto, neither: %v %q %v", r, w, err)
	}
	if _, _, err := SelectFrom("rootless", Makers{Linux: available, Rootless: noRootless}); !errors.Is(err, ErrRootlessUnavailable) {
		t.Errorf("rootless unavailable: %v", err)
	}
	if _, _, err := SelectWith("docker", available); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("docker: %v", err)
	}
}

type fakeLinux struct{ Runner }

func (fakeLinux) Kind() string { return "linux" }

type fakeRootless struct{ Runner }

func (fakeRootless) Kind() string { return "rootless" }

// When auto falls back, its warning says what runs instead, why, and the
// fix: the one the reason names, else the doctor.
func TestFallbackWarningSaysWhyAndTheFix(t *testing.T) {
	plain := func() (Runner, error) {
		return nil, fmt.Errorf("%w: no cgroup v1 memory controller", ErrLinuxUnavailable)
	}
	fixed := func() (Runner, error) {
		return nil, fixError(errors.New("sandbox: remove stale cgroup /sys/fs/cgroup/pids/tether/9-9-9-1: device or resource busy"),
			"`sudo rmdir /sys/fs/cgroup/pids/tether/9-9-9-1` once the kernel lets go of it")
	}
	rootless := func() (Runner, error) { return fakeRootless{}, nil }
	noRootless := func() (Runner, error) { return nil, fmt.Errorf("%w: no user namespaces", ErrRootlessUnavailable) }
	for _, c := range []struct {
		name          string
		linux, rootls func() (Runner, error)
		want          []string
		not           string
	}{
		{"plain reason", plain, rootless, []string{"WARNING: ROOTLESS SANDBOX", "no cgroup v1 memory controller", "fix: run `tether doctor`"}, ""},
		{"reason with a fix", fixed, rootless, []string{"WARNING: ROOTLESS SANDBOX", "device or resource busy", "fix: `sudo rmdir /sys/fs/cgroup/pids/tether/9-9-9-1`"}, "tether doctor"},
		{"neither", plain, noRootless, []string{"WARNING: NO SANDBOX", "no cgroup v1 memory controller", "no user namespaces", "fix: run `tether doctor`"}, ""},
	} {
		_, w, err := SelectFrom("auto", Makers{Linux: c.linux, Rootless: c.rootls})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, s := range c.want {
			if !strings.Contains(w, s) {
				t.Errorf("%s: warning %q lacks %q", c.name, w, s)
			}
		}
		if c.not != "" && strings.Contains(w, c.not) {
			t.Errorf("%s: warning %q holds %q", c.name, w, c.not)
		}
	}
	if got := FixOf(fmt.Errorf("sandbox: clean up after a dead judge: %w", errors.Join(errors.New("x"), fixError(errors.New("y"), "z")))); got != "z" {
		t.Errorf("FixOf through wrapping = %q, want z", got)
	}
}
