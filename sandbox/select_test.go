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
