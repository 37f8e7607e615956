//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// requireLinuxRunner returns a linux runner, or skips when this machine
// cannot run one — unless TETHER_REQUIRE_SANDBOX=1 (set by CI), where a
// missing capability fails the test.
func requireLinuxRunner(t testing.TB) *Linux {
	t.Helper()
	return requireLinuxRunnerWith(t, nil)
}

func requireLinuxRunnerWith(t testing.TB, opts *LinuxOptions) *Linux {
	t.Helper()
	r, err := NewLinux(opts)
	if err != nil {
		if os.Getenv("TETHER_REQUIRE_SANDBOX") == "1" {
			t.Fatalf("TETHER_REQUIRE_SANDBOX=1 but: %v", err)
		}
		t.Skipf("linux sandbox unavailable: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	if r.python == nil {
		t.Fatal("no python3 on the host PATH; the sandbox tests use it")
	}
	return r
}

type runResult struct {
	stdout, stderr string
	usage          Usage
}

// run starts spec, feeds stdin, collects both outputs, waits, closes, and
// checks that the sandbox left nothing behind.
func run(t *testing.T, r Runner, spec Spec, stdin string) runResult {
	t.Helper()
	p, err := r.Start(context.Background(), spec)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	var res runResult
	var wg sync.WaitGroup
	var out, errOut bytes.Buffer
	wg.Add(2)
	go func() { defer wg.Done(); io.Copy(&out, p.Stdout()) }()
	go func() { defer wg.Done(); io.Copy(&errOut, p.Stderr()) }()
	io.WriteString(p.Stdin(), stdin)
	p.Stdin().Close()
	res.usage, err = p.Wait()
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	wg.Wait()
	res.stdout, res.stderr = out.String(), errOut.String()
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	assertNothingLeft(t, p)
	return res
}

// assertNothingLeft checks that the sandbox's directory and, for the linux
// runner, its cgroups are gone. A cgroup directory can only be removed once
// no process is in it, so this also proves that no process of the sandbox
// survived.
func assertNothingLeft(t *testing.T, proc Process) {
	t.Helper()
	var dirs []string
	switch p := proc.(type) {
	case *linuxProcess:
		dirs = append([]string{p.dir.base}, p.cg.dirs...)
	case *rootlessProcess:
		dirs = []string{p.dir}
	default:
		t.Fatalf("assertNothingLeft: a %T", proc)
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("left behind: %s (stat: %v)", d, err)
		}
	}
}

func pyArgs(code string) []string { return []string{"python3", "-c", code} }

// pyForkChildren is a Python program that forks up to %d children that
// sleep and, when a fork fails, prints "stopped <children> <errno>".
const pyForkChildren = `
import os, time
n = 0
try:
    for _ in range(%d):
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        n += 1
except OSError as e:
    print("stopped", n, e.errno)
`

// startIdle starts cat in a sandbox of r: it runs until its stdin is
// closed. The test's cleanup closes it (Close is safe twice).
func startIdle(t *testing.T, r *Linux) *linuxProcess {
	t.Helper()
	p, err := r.Start(context.Background(), Spec{Args: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p.(*linuxProcess)
}

// requireSeccomp is requireLinuxRunner for a test of the seccomp filter,
// skipped on a kernel without seccomp.
func requireSeccomp(t *testing.T) *Linux {
	t.Helper()
	r := requireLinuxRunner(t)
	if r.seccomp == nil {
		t.Skip("kernel without seccomp")
	}
	return r
}

// wantStdout fails the test unless the program wrote want (its stderr
// says why not).
func (res runResult) wantStdout(t *testing.T, want string) {
	t.Helper()
	if res.stdout != want {
		t.Fatalf("stdout %q, want %q (stderr %q)", res.stdout, want, res.stderr)
	}
}

func TestLinuxIdentityAndPrivileges(t *testing.T) {
	r := requireLinuxRunner(t)
	res := run(t, r, Spec{Args: pyArgs(fmt.Sprintf(`
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
print(%d <= os.getuid() < %d, os.getgid(), os.getpid())
print(libc.prctl(39, 0, 0, 0, 0))  # PR_GET_NO_NEW_PRIVS
try:
    os.setuid(0)
    print("setuid ok")
except PermissionError:
    print("setuid denied")
`, sandboxUIDBase, sandboxUIDBase+sandboxUIDCount))}, "")
	want := "True 65534 2\n1\nsetuid denied\n"
	if res.stdout != want {
		t.Fatalf("stdout = %q, want %q (stderr %q)", res.stdout, want, res.stderr)
	}
}

func TestLinuxWorkDirHoldsFiles(t *testing.T) {
	r := requireLinuxRunner(t)
	res := run(t, r, Spec{
		Args: pyArgs(`
import os
print(sorted(os.listdir(".")))
print(open("pkg/mod.py").read().strip())
open("new.txt", "w").write("written")
print(open("new.txt").read())
`),
		Files: []File{
			{Name: "main.py", Data: []byte("x = 1\n")},
			{Name: "pkg/mod.py", Data: []byte("y = 2\n")},
		},
	}, "")
	want := "['main.py', 'pkg']\ny = 2\nwritten\n"
	if res.stdout != want {
		t.Fatalf("stdout = %q, want %q (stderr %q)", res.stdout, want, res.stderr)
	}
}

func TestLinuxStdinToStdout(t *testing.T) {
	r := requireLinuxRunner(t)
	res := run(t, r, Spec{Args: []string{"cat"}}, "frame one\nframe two\n")
	if res.stdout != "frame one\nframe two\n" || res.usage.ExitCode != 0 {
		t.Fatalf("stdout %q exit %d, stderr %q", res.stdout, res.usage.ExitCode, res.stderr)
	}
}

// A TCP connect to a listener on the host's loopback fails, without
// Network and with it (a sandbox with Network used to share the host's
// namespace, and reached the host's Redis), from a cold start and from a
// prepared one. TestLinuxOutboundNetwork shows that a sandbox with Network
// does reach what it is allowed to, so the check can tell the two apart.
func TestLinuxNoNetwork(t *testing.T) {
	for _, warm := range []int{0, 1} {
		t.Run(fmt.Sprintf("warm%d", warm), func(t *testing.T) {
			testNoNetwork(t, requireLinuxRunnerWith(t, &LinuxOptions{WarmStarts: warm}))
		})
	}
}

func testNoNetwork(t *testing.T, r *Linux) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	code := fmt.Sprintf(`
import socket
try:
    socket.create_connection(("127.0.0.1", %d), timeout=5).close()
    print("connected")
except OSError as e:
    print("refused", e.errno)
`, port)
	for _, tc := range []struct {
		network bool
		want    string
	}{{false, "refused"}, {true, "refused"}} {
		if tc.network {
			requireOutbound(t)
		}
		res := run(t, r, Spec{Args: pyArgs(code), Network: tc.network}, "")
		if !strings.HasPrefix(res.stdout, tc.want) {
			t.Errorf("Network=%v: stdout %q, want prefix %q (stderr %q)", tc.network, res.stdout, tc.want, res.stderr)
		}
	}
}

// A host file outside the sandbox's view cannot be read; bound, it can.
func TestLinuxHostPathsHidden(t *testing.T) {
	r := requireLinuxRunner(t)
	secretDir := t.TempDir()
	if err := os.Chmod(secretDir, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(secretDir, "hidden.txt")
	if err := os.WriteFile(secret, []byte("the answer"), 0o644); err != nil {
		t.Fatal(err)
	}
	code := fmt.Sprintf(`
for p in [%q, "/root", "/work", "/proc/1/environ"]:
    try:
        open(p).read()
        print(p, "readable")
    except OSError as e:
        print(p, type(e).__name__)
`, secret)
	res := run(t, r, Spec{Args: pyArgs(code)}, "")
	for _, line := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
		if strings.HasSuffix(line, "readable") {
			t.Errorf("unbound host path visible: %s", line)
		}
	}
	if n := strings.Count(res.stdout, "\n"); n != 4 {
		t.Fatalf("stdout %q (stderr %q)", res.stdout, res.stderr)
	}
	bound := run(t, r, Spec{Args: pyArgs(fmt.Sprintf("print(open(%q).read())", secret)), Binds: []Bind{{Path: secretDir}}}, "")
	if bound.stdout != "the answer\n" {
		t.Fatalf("bound path: stdout %q (stderr %q)", bound.stdout, bound.stderr)
	}
}

// Everything but the work dir and writable Binds is read-only.
func TestLinuxWritesOutsideWorkDirFail(t *testing.T) {
	r := requireLinuxRunner(t)
	roDir := t.TempDir()
	os.Chmod(roDir, 0o777) // the uid could write here on the host: only the read-only bind stops it
	code := fmt.Sprintf(`
for p in ["/tmp/x", "/usr/x", "/x", "/etc/passwd", %q]:
    try:
        open(p, "a").write("x")
        print(p, "written")
    except OSError as e:
        print(p, e.errno)
`, filepath.Join(roDir, "x"))
	res := run(t, r, Spec{Args: pyArgs(code), Binds: []Bind{{Path: roDir}}}, "")
	if strings.Contains(res.stdout, "written") || strings.Count(res.stdout, "\n") != 5 {
		t.Fatalf("stdout %q (stderr %q)", res.stdout, res.stderr)
	}
	rw := run(t, r, Spec{Args: pyArgs(fmt.Sprintf("open(%q, 'w').write('x'); print('ok')", filepath.Join(roDir, "y"))),
		Binds: []Bind{{Path: roDir, Writable: true}}}, "")
	if rw.stdout != "ok\n" {
		t.Fatalf("writable bind: stdout %q (stderr %q)", rw.stdout, rw.stderr)
	}
}

// kill(-1, SIGKILL) inside reaches only the sandbox: a host process of the
// same uid survives, and so does the judge.
func TestLinuxKillAllStaysInside(t *testing.T) {
	r := requireLinuxRunner(t)
	victim := exec.Command("sleep", "30")
	victim.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { victim.Process.Kill(); victim.Wait() }()
	res := run(t, r, Spec{Args: pyArgs(`
import os, signal, time
if os.fork() == 0:  # a process of its own for kill(-1) to find
    time.sleep(60)
    os._exit(0)
os.kill(-1, signal.SIGKILL)
os.wait()
os.kill(1, signal.SIGKILL)  # the placeholder: init of this namespace ignores it
print("parent", os.getppid())  # the judge is outside: 0
print("alive")
`)}, "")
	if res.stdout != "parent 0\nalive\n" {
		t.Fatalf("stdout %q (stderr %q)", res.stdout, res.stderr)
	}
	if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("host process of the same uid was killed: %v", err)
	}
}

// A program can kill itself: it is not the namespace's init.
func TestLinuxSuicide(t *testing.T) {
	r := requireLinuxRunner(t)
	res := run(t, r, Spec{Args: pyArgs("import os, signal; os.kill(os.getpid(), signal.SIGKILL); print('survived')")}, "")
	if res.usage.Signal != int(syscall.SIGKILL) || res.stdout != "" {
		t.Fatalf("usage %+v stdout %q", res.usage, res.stdout)
	}
}

func TestLinuxForkBombIsCapped(t *testing.T) {
	r := requireLinuxRunner(t)
	res := run(t, r, Spec{Args: pyArgs(fmt.Sprintf(pyForkChildren, 1000)), Limits: Limits{Pids: 16}}, "")
	var n, errno int
	if _, err := fmt.Sscanf(res.stdout, "stopped %d %d", &n, &errno); err != nil || n >= 16 || errno != int(syscall.EAGAIN) {
		t.Fatalf("stdout %q (stderr %q): want fewer than 16 forks then EAGAIN", res.stdout, res.stderr)
	}
}

func TestLinuxMemoryLimit(t *testing.T) {
	r := requireLinuxRunner(t)
	hog := run(t, r, Spec{Args: pyArgs("b = bytearray(400 << 20); print('allocated')"), Limits: Limits{Memory: 64 << 20}}, "")
	if !hog.usage.MemoryExceeded || hog.usage.Signal != int(syscall.SIGKILL) || hog.stdout != "" {
		t.Fatalf("hog: usage %+v stdout %q", hog.usage, hog.stdout)
	}
	fine := run(t, r, Spec{Args: pyArgs("b = bytearray(20 << 20); b[::4096] = b'x' * len(b[::4096]); print('ok')"), Limits: Limits{Memory: 128 << 20}}, "")
	if fine.usage.MemoryExceeded || fine.stdout != "ok\n" || fine.usage.MemoryPeak < 20<<20 {
		t.Fatalf("fine: usage %+v stdout %q stderr %q", fine.usage, fine.stdout, fine.stderr)
	}
}

func TestLinuxCPULimit(t *testing.T) {
	r := requireLinuxRunner(t)
	for name, code := range map[string]string{
		"loop": "while True: pass",
		// Two spinning children, the main process asleep: only the cgroup
		// watch sees the sum.
		"children": `
import os, time
for _ in range(2):
    if os.fork() == 0:
        while True: pass
time.sleep(3600)
`,
	} {
		res := run(t, r, Spec{Args: pyArgs(code), Limits: Limits{CPUTime: 700 * time.Millisecond, Pids: 8}}, "")
		if !res.usage.CPUExceeded || res.usage.CPU < 700*time.Millisecond || res.usage.Signal == 0 {
			t.Errorf("%s: usage %+v", name, res.usage)
		}
	}
}

func TestLinuxFileSizeAndOpenFiles(t *testing.T) {
	r := requireLinuxRunner(t)
	res := run(t, r, Spec{Args: pyArgs(`
try:
    open("big", "wb").write(b"x" * (2 << 20))
    print("big written")
except OSError as e:
    print("big", e.errno)
fs = []
try:
    for i in range(100):
        fs.append(open("main.py"))
    print("all open")
except OSError as e:
    print("files", e.errno)
`), Files: []File{{Name: "main.py", Data: []byte("#\n")}}, Limits: Limits{FileSize: 1 << 20, OpenFiles: 20}}, "")
	want := fmt.Sprintf("big %d\nfiles %d\n", syscall.EFBIG, syscall.EMFILE)
	res.wantStdout(t, want)
}

// The seccomp deny-list: a user namespace (which uid 65534 could make
// otherwise) and mount are refused with EPERM.
func TestLinuxSeccompDenyList(t *testing.T) {
	r := requireSeccomp(t)
	res := run(t, r, Spec{Args: pyArgs(`
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print(libc.unshare(0x10000000), ctypes.get_errno())  # CLONE_NEWUSER
print(libc.mount(b"none", b".", b"tmpfs", 0, None), ctypes.get_errno())
`)}, "")
	want := fmt.Sprintf("-1 %d\n-1 %d\n", syscall.EPERM, syscall.EPERM)
	res.wantStdout(t, want)
}

// pyCloneReport is the start of a Python program that makes children with
// a raw clone syscall: report(flags, pid), called right after the syscall,
// ends the child, reaps it in the parent and prints "<flags> child", or
// "<flags> errno <errno>" when the syscall failed.
const pyCloneReport = `
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def report(flags, pid):
    if pid == 0:
        os._exit(0)
    errno = ctypes.get_errno()
    if pid > 0:
        os.waitpid(pid, 0)
        print(hex(flags), "child")
    else:
        print(hex(flags), "errno", errno)
`

// clone with a CLONE_NEW* flag fails with EPERM: without the filter's rule
// on clone's flags, CLONE_NEWUSER gives the child every capability in a new
// user namespace (unshare, refused above, is not the only way there). A
// clone without such a flag still makes a child.
func TestLinuxSeccompCloneNewNamespaces(t *testing.T) {
	r := requireSeccomp(t)
	flags := []uint64{unix.CLONE_NEWUSER, unix.CLONE_NEWNS, unix.CLONE_NEWPID, unix.CLONE_NEWNET,
		unix.CLONE_NEWUTS, unix.CLONE_NEWIPC, unix.CLONE_NEWCGROUP, unix.CLONE_NEWUSER | unix.CLONE_NEWNET, 0}
	code := fmt.Sprintf(pyCloneReport+`
for flag in %s:
    report(flag, libc.syscall(ctypes.c_long(%d), ctypes.c_ulong(flag | 17), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)))
`, pyList(flags), unix.SYS_CLONE)
	res := run(t, r, Spec{Args: pyArgs(code)}, "")
	var want strings.Builder
	for _, f := range flags[:len(flags)-1] {
		fmt.Fprintf(&want, "%#x errno %d\n", f, syscall.EPERM)
	}
	want.WriteString("0x0 child\n")
	res.wantStdout(t, want.String())
}

// clone3 fails with ENOSYS whatever its flags (they sit behind a pointer the
// filter cannot read), so that libc and Go fall back to clone.
func TestLinuxSeccompClone3(t *testing.T) {
	r := requireSeccomp(t)
	code := fmt.Sprintf(pyCloneReport+`
for flags in [%d, 0]:
    args = (ctypes.c_uint64 * 8)(flags, 0, 0, 0, 17)  # flags, pidfd, child_tid, parent_tid, exit_signal, ...
    report(flags, libc.syscall(ctypes.c_long(%d), ctypes.byref(args), ctypes.c_size_t(ctypes.sizeof(args))))
`, unix.CLONE_NEWUSER, unix.SYS_CLONE3)
	res := run(t, r, Spec{Args: pyArgs(code)}, "")
	want := fmt.Sprintf("%#x errno %d\n0x0 errno %d\n", unix.CLONE_NEWUSER, syscall.ENOSYS, syscall.ENOSYS)
	res.wantStdout(t, want)
}

// A system call through another ABI (here the i386 one, int 0x80, which
// amd64 kernels with IA32 emulation serve) fails with ENOSYS: the filter's
// rules match amd64 call numbers, so without the architecture check
// unshare(CLONE_NEWUSER) through int 0x80 succeeded.
func TestLinuxSeccompForeignABI(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the test's machine code is amd64")
	}
	r := requireSeccomp(t)
	// push rbx; mov eax, 310 (i386 unshare); mov ebx, CLONE_NEWUSER; int 0x80; pop rbx; ret
	res := run(t, r, Spec{Args: pyArgs(`
import ctypes, mmap
code = bytes.fromhex("53" "b836010000" "bb00000010" "cd80" "5b" "c3")
m = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
m.write(code)
f = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(m)))
print(f())
`)}, "")
	if res.usage.Signal == int(syscall.SIGSEGV) {
		t.Skip("no i386 ABI on this kernel (int 0x80 faults)")
	}
	if want := fmt.Sprintf("%d\n", -int(syscall.ENOSYS)); res.stdout != want {
		t.Fatalf("stdout %q, want %q (stderr %q)", res.stdout, want, res.stderr)
	}
}

// What the clone rules must not break: threads (glibc tries clone3 first),
// fork, subprocess and posix_spawn.
func TestLinuxSeccompThreadsAndForkWork(t *testing.T) {
	r := requireLinuxRunner(t)
	res := run(t, r, Spec{Args: pyArgs(`
import os, subprocess, sys, threading
seen = []
threads = [threading.Thread(target=seen.append, args=(i,)) for i in range(4)]
for th in threads: th.start()
for th in threads: th.join()
print("threads", sorted(seen))
pid = os.fork()
if pid == 0:
    os._exit(7)
print("fork", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
out = subprocess.run([sys.executable, "-c", "print('hi')"], capture_output=True, text=True)
print("subprocess", out.stdout.strip(), out.returncode)
pid = os.posix_spawn(sys.executable, [sys.executable, "-c", "raise SystemExit(3)"], {})
print("posix_spawn", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
`)}, "")
	want := "threads [0, 1, 2, 3]\nfork 7\nsubprocess hi 0\nposix_spawn 3\n"
	res.wantStdout(t, want)
}

// pyList formats flags as a Python list literal.
func pyList(flags []uint64) string {
	parts := make([]string, len(flags))
	for i, f := range flags {
		parts[i] = fmt.Sprintf("%#x", f)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// TMPDIR names the private work dir, so tempfile works even when the
// working directory is read-only; a TMPDIR the Spec sets is kept.
func TestLinuxTempDir(t *testing.T) {
	r := requireLinuxRunner(t)
	roDir := t.TempDir()
	os.Chmod(roDir, 0o777) // the uid could write here on the host: only the read-only bind stops it
	code := `
import os, tempfile
d = tempfile.mkdtemp()
with open(os.path.join(d, "f"), "w") as f:
    f.write("x")
print(os.path.dirname(d) == os.environ["TMPDIR"], os.path.dirname(d) == os.getcwd())
print(tempfile.gettempdir())
`
	res := run(t, r, Spec{Args: pyArgs(code), Dir: roDir, Binds: []Bind{{Path: roDir}}}, "")
	lines := strings.Split(res.stdout, "\n")
	if len(lines) != 3 || lines[0] != "True False" || !strings.HasPrefix(lines[1], filepath.Join(r.tempRoot, tempPrefix)) {
		t.Fatalf("stdout %q, want the work dir under %s (stderr %q)", res.stdout, r.tempRoot, res.stderr)
	}
	own := t.TempDir()
	os.Chmod(own, 0o777)
	res = run(t, r, Spec{Args: pyArgs(code), Env: []string{"TMPDIR=" + own}, Dir: roDir,
		Binds: []Bind{{Path: roDir}, {Path: own, Writable: true}}}, "")
	if want := "True False\n" + own + "\n"; res.stdout != want {
		t.Fatalf("caller's TMPDIR: stdout %q, want %q (stderr %q)", res.stdout, want, res.stderr)
	}
}

// Close during a run kills everything and removes all.
func TestLinuxCloseWhileRunning(t *testing.T) {
	r := requireLinuxRunner(t)
	p, err := r.Start(context.Background(), Spec{Args: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	u, err := p.Wait()
	if err != nil || u.Signal != int(syscall.SIGKILL) {
		t.Fatalf("Wait after Close: %+v %v", u, err)
	}
	assertNothingLeft(t, p)
}

func TestLinuxStartErrors(t *testing.T) {
	r := requireLinuxRunner(t)
	for name, spec := range map[string]Spec{
		"no args":         {},
		"unknown program": {Args: []string{"no-such-program-anywhere"}},
		"relative bind":   {Args: []string{"true"}, Binds: []Bind{{Path: "rel"}}},
		"missing bind":    {Args: []string{"true"}, Binds: []Bind{{Path: "/no/such/dir"}}},
		"file escapes":    {Args: []string{"true"}, Files: []File{{Name: "../x", Data: nil}}},
		"invisible dir":   {Args: []string{"true"}, Dir: "/root"},
	} {
		if p, err := r.Start(context.Background(), spec); err == nil {
			p.Close()
			t.Errorf("%s: Start succeeded", name)
		}
	}
	_, err := r.Start(context.Background(), Spec{Args: []string{"no-such-program-anywhere"}})
	if !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("unknown program: %v, want exec.ErrNotFound", err)
	}
	entries := ownEntries(os.TempDir())
	if len(entries) != 0 {
		t.Errorf("failed starts left %v", entries)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Start(ctx, Spec{Args: []string{"true"}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

// Sandboxes cannot reach each other, nor the host, through abstract Unix
// sockets (each has its own network namespace, and Landlock scopes them
// where the kernel can, which is what keeps a sandbox with Network, in the
// host's namespace, from the host's), while a program still talks to its
// own.
func TestLinuxAbstractSocketsStayInside(t *testing.T) {
	for _, network := range []bool{false, true} {
		t.Run(fmt.Sprintf("network=%v", network), func(t *testing.T) {
			r := requireLinuxRunner(t)
			if network {
				requireOutbound(t)
			}
			if network && !r.scopeSockets {
				t.Skip("kernel without Landlock scoping: a sandbox with Network shares the host's abstract sockets")
			}
			name := fmt.Sprintf("tether-test-%d-%v", os.Getpid(), network)
			hostLn, err := net.Listen("unix", "@"+name+"-host")
			if err != nil {
				t.Fatal(err)
			}
			defer hostLn.Close()
			listener, err := r.Start(context.Background(), Spec{Args: pyArgs(fmt.Sprintf(`
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0%s")
s.listen(1)
c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
c.connect("\0%s")
print("listening", flush=True)
sys.stdin.read()
`, name, name)), Network: network})
			if err != nil {
				t.Fatal(err)
			}
			defer listener.Close()
			line := make([]byte, 10)
			if n, err := io.ReadFull(listener.Stdout(), line); err != nil || string(line[:n]) != "listening\n" {
				errOut, _ := io.ReadAll(listener.Stderr())
				t.Fatalf("listener: %q %v (stderr %q)", line[:n], err, errOut)
			}
			for _, target := range []string{name, name + "-host"} {
				res := run(t, r, Spec{Args: pyArgs(fmt.Sprintf(`
import socket
c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    c.connect("\0%s")
    print("connected")
except OSError as e:
    print("refused", e.errno)
`, target)), Network: network}, "")
				if !strings.HasPrefix(res.stdout, "refused") {
					t.Errorf("connect to @%s from another sandbox: stdout %q, stderr %q", target, res.stdout, res.stderr)
				}
			}
			listener.Stdin().Close()
			if u, err := listener.Wait(); err != nil || u.ExitCode != 0 {
				t.Fatalf("listener: usage %+v, err %v", u, err)
			}
		})
	}
}

// A Bind's Target is where the host folder appears inside, and Dir and the
// program's arguments are read as inside paths (Neuro OJ's /workspace).
func TestLinuxBindTarget(t *testing.T) {
	r := requireLinuxRunner(t)
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "data.txt"), []byte("from the host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, r, Spec{
		Args:  []string{"python3", "-c", "import os; print(os.getcwd()); print(open('/workspace/data.txt').read(), end='')"},
		Dir:   "/workspace",
		Binds: []Bind{{Path: dir, Target: "/workspace"}},
		Env:   []string{"PATH=/usr/bin:/bin"},
	}, "")
	if want := "/workspace\nfrom the host\n"; res.stdout != want {
		t.Fatalf("stdout %q (stderr %q), want %q", res.stdout, res.stderr, want)
	}
}

// Runners made at the same time in one process (tests in parallel, a
// worker's slots) each probe their cgroups: the probes must not collide.
// They did: every probe of a process had the one name ownerTag-probe, and
// the second NewLinux failed "…-probe already exists".
func TestLinuxRunnersMadeAtOnce(t *testing.T) {
	requireLinuxRunner(t) // skips or fails as the other tests do
	const n = 8
	errs := make(chan error, n)
	var runners sync.WaitGroup
	for range n {
		runners.Go(func() {
			r, err := NewLinux(nil)
			if err == nil {
				err = r.Close()
			}
			errs <- err
		})
	}
	runners.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
