package sandboxtest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that records a Fatalf or Skipf instead of
// ending the goroutine.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper()                        {}
func (r *recorder) Fatalf(format string, a ...any) { r.fatal = fmt.Sprintf(format, a...) }
func (r *recorder) Skipf(format string, a ...any)  { r.skip = fmt.Sprintf(format, a...) }

// A runner this machine cannot make skips the test, unless CI requires
// that runner: then it fails, saying which variable asked for it.
func TestRequireSkipsUnlessCIRequires(t *testing.T) {
	missing := errors.New("no user namespaces")
	for _, tc := range []struct {
		env   string
		err   error
		fatal string
		skip  string
	}{
		{"", nil, "", ""},
		{"1", nil, "", ""},
		{"", missing, "", "rootless sandbox unavailable: no user namespaces"},
		{"0", missing, "", "rootless sandbox unavailable: no user namespaces"},
		{"1", missing, "TETHER_REQUIRE_ROOTLESS=1 but the rootless sandbox is unavailable: no user namespaces", ""},
	} {
		t.Setenv("TETHER_REQUIRE_ROOTLESS", tc.env)
		r := &recorder{TB: t}
		require(r, "TETHER_REQUIRE_ROOTLESS", "rootless", tc.err)
		if r.fatal != tc.fatal || r.skip != tc.skip {
			t.Errorf("env %q, err %v: fatal %q skip %q, want fatal %q skip %q", tc.env, tc.err, r.fatal, r.skip, tc.fatal, tc.skip)
		}
	}
}

// Without python3 on PATH a test skips, unless CI requires it: then it
// fails, saying which variable asked for it.
func TestPython3SkipsUnlessCIRequires(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, tc := range []struct {
		env         string
		fatal, skip bool
	}{{"", false, true}, {"1", true, false}} {
		t.Setenv("TETHER_REQUIRE_INTEROP", tc.env)
		r := &recorder{TB: t}
		Python3(r)
		if (r.fatal != "") != tc.fatal || (r.skip != "") != tc.skip ||
			(tc.fatal && !strings.Contains(r.fatal, "TETHER_REQUIRE_INTEROP=1")) {
			t.Errorf("env %q: fatal %q skip %q", tc.env, r.fatal, r.skip)
		}
	}
}
