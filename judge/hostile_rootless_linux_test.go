//go:build linux

package judge

import (
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
)

// rootlessTestUser is the unprivileged user the rootless suite runs as
// (made by the test, or by .ci/run, if missing).
const rootlessTestUser = "tether-rootless"

// The hostile-solution suite again, with the rootless runner: this test
// binary runs TestHostileSolutions as an unprivileged user made for it
// (useradd, then setpriv), where sandboxtest.Isolating picks the rootless runner.
// It needs root to do so; TETHER_REQUIRE_ROOTLESS=1 (CI) turns every skip
// into a failure, as does the suite's own check that this machine lets
// that user make user namespaces.
func TestHostileSolutionsRootless(t *testing.T) {
	require := os.Getenv("TETHER_REQUIRE_ROOTLESS") == "1"
	skip := func(format string, args ...any) {
		t.Helper()
		if require {
			t.Fatalf("TETHER_REQUIRE_ROOTLESS=1 but: "+format, args...)
		}
		t.Skipf(format, args...)
	}
	if os.Geteuid() != 0 {
		t.Skip("runs the suite as another user: needs root (as that user, TestHostileSolutions itself is the rootless run)")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		skip("no setpriv (util-linux): %v", err)
	}
	if _, err := user.Lookup(rootlessTestUser); err != nil {
		out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", rootlessTestUser).CombinedOutput()
		if err != nil {
			skip("useradd %s: %v: %s", rootlessTestUser, err, out)
		}
	}
	// The user must be able to run this binary and read the package's
	// testdata and the Python SDK: the binary is copied out of the build
	// cache (private to root); the tree must be world-readable.
	bin := filepath.Join(t.TempDir(), "judge.test")
	if err := copyExecutable(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Dir(bin), filepath.Dir(filepath.Dir(bin))} {
		os.Chmod(d, 0o755)
	}
	pythonDir := "/usr/bin" // the host's python3 must be reachable by the user, not only root's (pyenv under /root)
	cmd := exec.Command(setpriv, "--reuid="+rootlessTestUser, "--regid="+rootlessTestUser, "--clear-groups",
		bin, "-test.run=^TestHostileSolutions$", "-test.v", "-test.count=1")
	cmd.Env = []string{"PATH=" + pythonDir + ":/bin", "HOME=/tmp", "TMPDIR=/tmp", "TETHER_REQUIRE_ROOTLESS=1"}
	out, err := cmd.CombinedOutput()
	text := string(out)
	t.Logf("as %s:\n%s", rootlessTestUser, lastLines(text, 60))
	if err != nil {
		t.Fatalf("the suite as %s failed: %v", rootlessTestUser, err)
	}
	if !strings.Contains(text, "--- PASS: TestHostileSolutions ") {
		t.Fatalf("the suite did not run as %s", rootlessTestUser)
	}
}

func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
