//go:build linux

package testenv

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/copyfile"
)

// RootlessUser is the unprivileged user that tests of the rootless sandbox
// run as (made by RunTestsAs, or by .ci/run, if missing).
const RootlessUser = "tether-rootless"

// RunTestsAs runs the tests of this test binary that match run (a
// -test.run pattern) as the unprivileged user name, made if missing
// (useradd, then setpriv), with env as their whole environment and PATH
// /usr/bin:/bin and the Go toolchain's dir (the host's python3, not
// root's). It fails t if they fail or if none named want passed, and
// returns their output. It needs root;
// anything else missing skips t, or fails it when TETHER_REQUIRE_ROOTLESS
// is "1". The tree the tests read must be world-readable; the binary is
// copied out of the build cache (private to root).
func RunTestsAs(t *testing.T, name, run, want string, env []string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("runs tests as another user: needs root (as that user, the tests themselves are the unprivileged run)")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		Require(t, "TETHER_REQUIRE_ROOTLESS", err)
	}
	if _, err := user.Lookup(name); err != nil {
		if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
			Require(t, "TETHER_REQUIRE_ROOTLESS", &useraddError{name, err, out})
		}
	}
	bin := filepath.Join(t.TempDir(), filepath.Base(os.Args[0]))
	if err := copyfile.ToNew(os.Args[0], bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Dir(bin), filepath.Dir(filepath.Dir(bin))} {
		os.Chmod(d, 0o755)
	}
	cmd := exec.Command(setpriv, "--reuid="+name, "--regid="+name, "--clear-groups",
		bin, "-test.run="+run, "-test.v", "-test.count=1")
	path := "PATH=/usr/bin:/bin"
	if gobin, err := exec.LookPath("go"); err == nil {
		path += ":" + filepath.Dir(gobin) // the official archive's /usr/local/go/bin
	}
	cmd.Env = append([]string{path, "HOME=/tmp", "TMPDIR=/tmp"}, env...)
	out, err := cmd.CombinedOutput()
	text := string(out)
	t.Logf("as %s:\n%s", name, lastLines(text, 60))
	if err != nil {
		t.Fatalf("the tests as %s failed: %v\n%s", name, err, failureLines(text))
	}
	if !strings.Contains(text, "--- PASS: "+want+" ") {
		t.Fatalf("%s did not run as %s", want, name)
	}
	return text
}

type useraddError struct {
	name string
	err  error
	out  []byte
}

func (e *useraddError) Error() string {
	return "useradd " + e.name + ": " + e.err.Error() + ": " + strings.TrimSpace(string(e.out))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// failureLines are the lines of a verbose test run that say what failed
// (its FAIL lines and the messages under them), which the run's tail may
// not hold.
func failureLines(text string) string {
	var keep []string
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "--- FAIL") || strings.Contains(trimmed, "_test.go:") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}
