package lm_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tether-dev/tether/internal/copyfile"
)

// A connection over loopback TCP from another user is closed without an
// answer; one from the server's own user is answered.
func TestLoopbackTCPRefusesOtherUID(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("TETHER_REQUIRE_SANDBOX") == "1" {
			t.Fatal("TETHER_REQUIRE_SANDBOX=1 but not root: cannot start a client as another user")
		}
		t.Skip("not root: cannot start a client as another user (TETHER_REQUIRE_SANDBOX=1 makes this a failure)")
	}
	// The test binary is the client; copy it where user nobody can run it.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "lm-peer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "client")
	if err := copyfile.ToNew(self, bin, 0o755); err != nil {
		t.Fatal(err)
	}

	srv, addr := echoServer(t, nil, nil)
	run := func(cred *syscall.Credential) string {
		t.Helper()
		cmd := exec.Command(bin)
		cmd.Env = []string{peerClientEnv + "=" + addr}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("client (%+v): %v\n%s", cred, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := run(nil); got != "answered" {
		t.Fatalf("client of the same uid: %q, want answered", got)
	}
	if got := run(&syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}); got != "closed" {
		t.Errorf("client of uid 65534: %q, want closed", got)
	}
	if n := srv.Refused(); n != 1 {
		t.Errorf("Refused() = %d, want 1", n)
	}
}
