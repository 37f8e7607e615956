//go:build linux

package lang

import (
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
)

// rootlessTestUser is the unprivileged user the rootless run uses (made by
// .ci/run, or here, if missing).
const rootlessTestUser = "tether-rootless"

// The compile tests again with the rootless sandbox: this test binary runs
// them as an unprivileged user (setpriv), where sandboxtest.Isolating picks
// the rootless runner. TETHER_REQUIRE_ROOTLESS=1 turns a skip into a failure.
func TestBuildRootless(t *testing.T) {
	requireTool(t, "g++")
	skip := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("TETHER_REQUIRE_ROOTLESS") == "1" {
			t.Fatalf("TETHER_REQUIRE_ROOTLESS=1 but: "+format, args...)
		}
		t.Skipf(format, args...)
	}
	if os.Geteuid() != 0 {
		t.Skip("runs the tests as another user: needs root (as that user, the tests themselves are the rootless run)")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		skip("no setpriv (util-linux): %v", err)
	}
	if _, err := user.Lookup(rootlessTestUser); err != nil {
		if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", rootlessTestUser).CombinedOutput(); err != nil {
			skip("useradd %s: %v: %s", rootlessTestUser, err, out)
		}
	}
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		os.Chmod(d, 0o755) // the user runs the copied binary (the sandbox's init too)
	}
	bin := filepath.Join(dir, "lang.test")
	if err := copyExecutable(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, "--reuid="+rootlessTestUser, "--regid="+rootlessTestUser, "--clear-groups", bin,
		"-test.run=^(TestCompileAndRunCpp|TestCompileErrorShowsTheCompilerLine|TestCompilerBombs|TestCacheHitMissAndCorruption|TestCacheTwoBuildersAtOnce)$",
		"-test.v", "-test.count=1")
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/tmp", "TMPDIR=/tmp", "TETHER_REQUIRE_ROOTLESS=1", "TETHER_REQUIRE_LANGUAGES=1"}
	out, err := cmd.CombinedOutput()
	t.Logf("as %s:\n%s", rootlessTestUser, out)
	if err != nil {
		t.Fatalf("the tests as %s failed: %v", rootlessTestUser, err)
	}
	if n := strings.Count("\n"+string(out), "\n--- PASS: Test"); n != 5 {
		t.Fatalf("%d tests passed as %s, want 5", n, rootlessTestUser)
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
