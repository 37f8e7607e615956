//go:build linux

package sandbox

import (
	"context"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/internal/testnet"
)

// requireRootless returns a rootless runner, or skips when this machine
// does not let this user make user namespaces — unless
// TETHER_REQUIRE_ROOTLESS=1 (CI), where that fails the test.
func requireRootless(t *testing.T) *Rootless {
	t.Helper()
	r, err := NewRootless()
	if err != nil {
		if os.Getenv("TETHER_REQUIRE_ROOTLESS") == "1" {
			t.Fatalf("TETHER_REQUIRE_ROOTLESS=1 but: %v", err)
		}
		t.Skipf("rootless sandbox unavailable: %v", err)
	}
	if r.python == nil {
		t.Fatal("no python3 on the host PATH; the sandbox tests use it")
	}
	return r
}

// The program is PID 2 of its own namespaces, sees only the system paths
// and its work dir, cannot write outside it, has no network and no
// capability, and runs under the same seccomp filter.
func TestRootlessIsolation(t *testing.T) {
	r := requireRootless(t)
	res := run(t, r, Spec{Args: pyArgs(`
import ctypes, fcntl, os, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
import stat
def _fd_open(fd):  # a pipe or socket the program did not open (the init's)
    try:
        m = os.fstat(fd).st_mode
        return stat.S_ISFIFO(m) or stat.S_ISSOCK(m)
    except OSError:
        return False
print("pid1", os.getpid() == 1, "host", socket.gethostname())
print("data", open("data.txt").read().strip())
print("root", sorted(p for p in os.listdir("/") if p in ("home", "proc", "usr")))
try:
    open("/usr/x", "w")
except OSError as e:
    print("write /usr", e.errno)
open("scratch", "w").write("ok")
try:
    socket.create_connection(("127.0.0.1", 22), timeout=2)
except OSError as e:
    print("net", e.errno)
print("unshare", libc.unshare(0x10000000), ctypes.get_errno())
print("fds", [fd for fd in range(3, 64) if _fd_open(fd)])
print("vsock", end=" ")
try:
    socket.socket(40, socket.SOCK_STREAM)
except OSError as e:
    print(e.errno)
`), Files: []File{{Name: "data.txt", Data: []byte("hello\n")}}}, "")
	for _, want := range []string{"pid1 False host sandbox\n", "data hello\n", "root ['usr']\n", "write /usr 30\n", "net 101\n", "unshare -1 1\n", "fds []\n", "vsock 97\n"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("stdout %q lacks %q (stderr %q)", res.stdout, want, res.stderr)
		}
	}
	if res.usage.ExitCode != 0 {
		t.Errorf("usage %+v", res.usage)
	}
}

// Exit codes and signals come back as the program's own, as does its CPU
// time and peak memory.
func TestRootlessUsage(t *testing.T) {
	r := requireRootless(t)
	res := run(t, r, Spec{Args: pyArgs(`
import os, sys
b = bytearray(64 << 20)
for i in range(0, len(b), 4096): b[i] = 1
os.kill(os.getpid(), 9)
`)}, "")
	if res.usage.Signal != 9 || res.usage.ExitCode != -1 {
		t.Errorf("suicide by SIGKILL: %+v (stderr %q)", res.usage, res.stderr)
	}
	if res.usage.MemoryPeak < 64<<20 {
		t.Errorf("peak memory %d, want at least 64 MiB", res.usage.MemoryPeak)
	}
	res = run(t, r, Spec{Args: pyArgs("import sys; sys.exit(3)")}, "")
	if res.usage.ExitCode != 3 || res.usage.CPU <= 0 {
		t.Errorf("exit 3: %+v", res.usage)
	}
}

// A fork bomb meets the process limit, a memory hog the memory limit.
func TestRootlessLimits(t *testing.T) {
	r := requireRootless(t)
	if os.Geteuid() == 0 {
		// Mapped to the host's root, the sandbox's processes are counted
		// with root's, which RLIMIT_NPROC does not limit.
		t.Skip("the process limit of the rootless runner holds for a judge that is not root (the hostile suite runs it as one)")
	}
	res := run(t, r, Spec{Args: pyArgs(`
import os
n = 0
try:
    while n < 1000:
        if os.fork() == 0:
            import time; time.sleep(60); os._exit(0)
        n += 1
except OSError:
    pass
print(n)
try:
    b = bytearray(512 << 20)
    print("allocated")
except MemoryError:
    print("memory error")
`), Limits: Limits{Pids: 8, Memory: 128 << 20}}, "")
	if res.stdout != "7\nmemory error\n" && res.stdout != "8\nmemory error\n" {
		t.Errorf("stdout %q, want about 8 forks and a memory error (stderr %q)", res.stdout, res.stderr)
	}
}

// Kill ends the program and all it started at once, and Wait still says
// what it used: the init kills, reaps and reports.
func TestRootlessKillKeepsUsage(t *testing.T) {
	r := requireRootless(t)
	p, err := r.Start(context.Background(), Spec{Args: pyArgs(`
import os, time
if os.fork() == 0:
    time.sleep(600)
while time.process_time() < 0.2:
    pass
print("spun", flush=True)
while True:
    pass
`)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	go io.Copy(io.Discard, p.Stderr())
	line := make([]byte, 5)
	if _, err := io.ReadFull(p.Stdout(), line); err != nil || string(line) != "spun\n" {
		t.Fatalf("%q %v", line, err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	u, err := p.Wait()
	if err != nil || u.Signal != 9 || u.CPU < 200*time.Millisecond {
		t.Fatalf("after Kill: %+v %v; want SIGKILL and the 200 ms it spun", u, err)
	}
	// Both processes are gone: stdout reaches EOF (the child held it too).
	if rest, err := io.ReadAll(p.Stdout()); err != nil || len(rest) != 0 {
		t.Fatalf("stdout after Kill: %q %v", rest, err)
	}
}

// A Bind's Target is honoured as under the linux runner: the folder is
// seen at the target, which may be the working directory.
func TestRootlessBindTarget(t *testing.T) {
	r := requireRootless(t)
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	if err := os.WriteFile(dir+"/data.txt", []byte("from the host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, r, Spec{
		Args:  pyArgs(`import os; print(os.getcwd()); print(open("/workspace/data.txt").read(), end="")`),
		Dir:   "/workspace",
		Binds: []Bind{{Path: dir, Target: "/workspace"}},
	}, "")
	if want := "/workspace\nfrom the host\n"; res.stdout != want {
		t.Fatalf("stdout %q (stderr %q), want %q", res.stdout, res.stderr, want)
	}
}

// The rootless sandbox gives a program that asks for the network the same
// outbound access only as the linux one (its init loads the ruleset).
func TestRootlessOutboundNetwork(t *testing.T) {
	requireOutbound(t)
	r := requireRootless(t)
	t.Cleanup(func() { r.Close() })
	testOutbound(t, r)
}

// As any user, not only root: a rootless sandbox with the network has
// slirp4netns' interface (a route to its gateway from 10.0.2.100, seen by
// a UDP connect, which sends nothing), and reaches no listener of the
// host's, on its loopback, through the gateway, or on its own addresses.
func TestRootlessOutboundHostUnreachable(t *testing.T) {
	testenv.Require(t, testnet.RequireEnv, CheckNetwork())
	r := requireRootless(t)
	t.Cleanup(func() { r.Close() })
	ln, err := net.Listen("tcp4", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	port := testnet.ServeBanner(t, ln, "from-host").Port()
	targets := []string{
		netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port).String(),
		netip.AddrPortFrom(netip.MustParseAddr("10.0.2.2"), port).String(),
	}
	own, err := hostIPv4Addrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range own {
		if a.IsLoopback() {
			continue
		}
		targets = append(targets, netip.AddrPortFrom(a, port).String())
	}
	got := connectFromSandbox(t, r, Spec{Network: true}, targets)
	for _, target := range targets {
		if !strings.HasPrefix(got[target], "failed") {
			t.Errorf("%s (a listener of the host's): %q, want it unreachable", target, got[target])
		}
	}
	res := run(t, r, Spec{Network: true, Args: pyArgs(`
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.connect(("10.0.2.2", 9))
print(s.getsockname()[0])
`)}, "")
	if res.stdout != "10.0.2.100\n" {
		t.Errorf("the sandbox's address towards 10.0.2.2: %q (stderr %q), want 10.0.2.100 (slirp4netns' tap0)", res.stdout, res.stderr)
	}
}

// TestRootlessOutboundHostUnreachable and TestProbeOutbound again, as an
// unprivileged user: the rootless sandbox is for a judge without root,
// where slirp4netns joins the sandbox's user namespace as that user.
func TestRootlessOutboundUnprivileged(t *testing.T) {
	testenv.Require(t, testnet.RequireEnv, CheckNetwork())
	testenv.RunTestsAs(t, testenv.RootlessUser, "^(TestRootlessOutboundHostUnreachable|TestProbeOutbound)$", "TestRootlessOutboundHostUnreachable",
		[]string{"TETHER_REQUIRE_ROOTLESS=1", testnet.RequireEnv + "=1"})
}
