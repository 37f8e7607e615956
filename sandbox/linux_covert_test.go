//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// covertCode is one end of an attempt by two concurrent sandboxes to
// signal each other: argv is role ("hold" or "probe"), channel, and a
// file both can read. The holder prints "ready …" once set up, and at EOF
// on stdin "received" if the probe reached it; the probe prints "busy" if
// it saw the holder. Either means the channel works.
const covertCode = `
import ctypes, errno, fcntl, os, select, socket, sys
role, channel, shared = sys.argv[1], sys.argv[2], sys.argv[3]
PORT = 47113
def out(*a):
    print(*a, flush=True)
def refused(e):
    out("refused", e.errno)
    sys.exit(0)
libc = ctypes.CDLL(None, use_errno=True)
def check(r):
    if r < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return r

try:
    if channel == "netlink":  # NETLINK_USERSOCK: unprivileged unicast between sockets
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 2)
        if role == "hold":
            s.bind((PORT, 0))
        else:
            s.sendto(b"hello", (PORT, 0))
    elif channel == "vsock":
        s = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)
        if role == "hold":
            s.bind((socket.VMADDR_CID_ANY, PORT))
            s.listen(1)
        else:
            s.settimeout(2)
            s.connect((1, PORT))  # VMADDR_CID_LOCAL
    elif channel == "flock":
        fd = os.open(shared, os.O_RDONLY)
        flags = fcntl.LOCK_EX if role == "hold" else fcntl.LOCK_EX | fcntl.LOCK_NB
        try:
            fcntl.flock(fd, flags)
        except BlockingIOError:
            out("busy")
            sys.exit(0)
    elif channel == "ofd":  # open file description locks: a read lock seen by F_OFD_GETLK
        fd = os.open(shared, os.O_RDONLY)
        import struct
        if role == "hold":
            fcntl.fcntl(fd, 37, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0))  # F_OFD_SETLK
        else:
            got = fcntl.fcntl(fd, 36, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0))  # F_OFD_GETLK
            if struct.unpack("hhqqi", got)[0] != fcntl.F_UNLCK:
                out("busy")
                sys.exit(0)
    elif channel == "abstract":  # the name space of abstract Unix sockets
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.bind("\0tether-covert")
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                out("busy")
                sys.exit(0)
            raise
    elif channel == "port":  # the port space of a network namespace
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind(("0.0.0.0", PORT))
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                out("busy")
                sys.exit(0)
            raise
    elif channel == "inotify":  # an open of a shared file, seen by a watch
        if role == "hold":
            ifd = check(libc.inotify_init1(os.O_NONBLOCK))
            check(libc.inotify_add_watch(ifd, shared.encode(), 0x20))  # IN_OPEN
        else:
            os.close(os.open(shared, os.O_RDONLY))
    elif channel == "uid":
        out("uid", os.getuid())
        if role == "probe":
            sys.exit(0)
except OSError as e:
    refused(e)

if role == "probe":
    out("free")
    sys.exit(0)
out("ready")
sys.stdin.read()
if channel == "netlink":
    s.setblocking(False)
    try:
        s.recv(64)
        out("received")
    except BlockingIOError:
        out("nothing")
elif channel == "vsock":
    s.setblocking(False)
    try:
        s.accept()
        out("received")
    except BlockingIOError:
        out("nothing")
elif channel == "inotify":
    try:
        os.read(ifd, 4096)
        out("received")
    except BlockingIOError:
        out("nothing")
`

// Two sandboxes of one runner that run at once cannot signal each other
// through what the kernel shares between them unless namespaced: netlink,
// vsock, file locks on files both can read, inotify on them, the names of
// abstract Unix sockets and the ports of a network namespace. Nor do they
// run as the same user.
func TestLinuxConcurrentSandboxesCannotSignal(t *testing.T) {
	r := requireLinuxRunner(t)
	shared := r.python.executable // every sandbox can read it
	var holderUID string
	for _, channel := range []string{"netlink", "vsock", "flock", "ofd", "inotify", "abstract", "port", "uid"} {
		t.Run(channel, func(t *testing.T) {
			holder, err := r.Start(context.Background(), Spec{Args: append(pyArgs(covertCode), "hold", channel, shared)})
			if err != nil {
				t.Fatal(err)
			}
			defer holder.Close()
			go io.Copy(io.Discard, holder.Stderr())
			lines := bufio.NewReader(holder.Stdout())
			first, _ := lines.ReadString('\n')
			if strings.HasPrefix(first, "uid ") {
				holderUID = strings.TrimSpace(first)
				first, _ = lines.ReadString('\n')
			}
			probe := run(t, r, Spec{Args: append(pyArgs(covertCode), "probe", channel, shared)}, "")
			holder.Stdin().Close()
			rest, _ := io.ReadAll(lines)
			holder.Wait()
			t.Logf("holder: %q then %q; probe: %q %q", first, rest, probe.stdout, probe.stderr)
			if !strings.HasPrefix(first, "ready") && !strings.HasPrefix(first, "refused") {
				t.Fatalf("holder did not set up: %q", first)
			}
			if strings.Contains(string(rest), "received") || strings.Contains(probe.stdout, "busy") {
				t.Errorf("%s carried a signal between two sandboxes", channel)
			}
			if channel == "uid" && (holderUID == "" || strings.TrimSpace(probe.stdout) == holderUID) {
				t.Errorf("two sandboxes at once run as the same user: %q and %q", holderUID, probe.stdout)
			}
		})
	}
}

// Socket families other than Unix, IP and netlink (route only) are refused
// with EAFNOSUPPORT: vsock is not scoped by network namespaces on every
// kernel, and the others are no judged program's business.
func TestLinuxSocketFamilies(t *testing.T) {
	r := requireSeccomp(t)
	// The last two pass AF_INET and AF_NETLINK with the high half of the
	// register set, which the kernel ignores (int) and the filter must not.
	res := run(t, r, Spec{Args: pyArgs(fmt.Sprintf(`
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
for family, kind, proto in [(1, 1, 0), (2, 1, 0), (10, 2, 0), (16, 3, 0), (16, 3, 2), (16, 3, 4), (40, 1, 0), (17, 3, 0), (38, 5, 0), ((1 << 32) | 40, 1, 0), (16, 3, (1 << 32) | 2)]:
    fd = libc.syscall(ctypes.c_long(%d), ctypes.c_ulong(family), ctypes.c_ulong(kind), ctypes.c_ulong(proto))
    if fd >= 0:
        os.close(fd)
        print(family, proto, "ok")
    else:
        print(family, proto, ctypes.get_errno())
`, unix.SYS_SOCKET))}, "")
	const ea = unix.EAFNOSUPPORT
	want := fmt.Sprintf("1 0 ok\n2 0 ok\n10 0 ok\n16 0 ok\n16 2 %[1]d\n16 4 %[1]d\n40 0 %[1]d\n17 0 %[1]d\n38 0 %[1]d\n%[2]d 0 %[1]d\n16 %[3]d %[1]d\n", ea, (1<<32)|40, (1<<32)|2)
	res.wantStdout(t, want)
}

// fcntl's lock commands succeed without locking whatever the high half of
// the command's register holds (the kernel reads 32 bits), and F_NOTIFY
// fails as on a kernel without dnotify.
func TestLinuxFcntlLocksAreNoOps(t *testing.T) {
	r := requireSeccomp(t)
	res := run(t, r, Spec{Args: pyArgs(fmt.Sprintf(`
import ctypes, fcntl, os, struct
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
fd = os.open("f", os.O_RDWR | os.O_CREAT)
lock = ctypes.create_string_buffer(struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0))
for cmd in [6, 7, 37, 38, (1 << 32) | 6, 1026]:
    r = libc.syscall(ctypes.c_long(%d), ctypes.c_ulong(fd), ctypes.c_ulong(cmd), lock)
    print(cmd, r, ctypes.get_errno() if r < 0 else 0)
with open("/proc/locks") if os.path.exists("/proc/locks") else open(os.devnull) as f:
    print("locks", len(f.read()))
`, unix.SYS_FCNTL))}, "")
	want := fmt.Sprintf("6 0 0\n7 0 0\n37 0 0\n38 0 0\n%d 0 0\n1026 -1 %d\nlocks 0\n", (1<<32)|6, unix.EINVAL)
	res.wantStdout(t, want)
}

// A sandbox's uid is claimed while it runs (another claim, from any judge,
// fails) and free again once it is closed.
func TestLinuxSandboxUIDClaimedUntilClose(t *testing.T) {
	r := requireLinuxRunner(t)
	p := startIdle(t, r)
	lease := p.uid
	if lease == nil {
		t.Fatal("no uid of its own")
	}
	tryLock := func() error {
		f, err := os.Open(fmt.Sprintf("%s/%d", uidLockDir, lease.uid))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	}
	if err := tryLock(); err == nil {
		t.Errorf("uid %d can be claimed while its sandbox runs", lease.uid)
	}
	p.Stdin().Close()
	p.Wait()
	p.Close()
	if err := tryLock(); err != nil {
		t.Errorf("uid %d still claimed after Close: %v", lease.uid, err)
	}
}
