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
	if _, _, err := SelectWith("docker", available); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("docker: %v", err)
	}
}

type fakeLinux struct{ Runner }

func (fakeLinux) Kind() string { return "linux" }
