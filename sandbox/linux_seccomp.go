//go:build linux

package sandbox

import (
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"unsafe"

	gsfilter "github.com/criyle/go-sandbox/pkg/seccomp"
	gsseccomp "github.com/criyle/go-sandbox/pkg/seccomp/libseccomp"
	bpfseccomp "github.com/elastic/go-seccomp-bpf"
	bpfarch "github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/sys/unix"
)

// deniedSyscalls are what a judged program never needs and what would let it
// reach past its sandbox: tracing and reading other processes, changing
// mounts or namespaces, loading code into the kernel, the clock and the
// machine itself. Everything else is allowed: a deny-list, because the
// namespaces, the unprivileged uid and the cgroup are the boundary and the
// filter only shrinks the kernel surface behind them.
var deniedSyscalls = []string{
	"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
	"mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree",
	"fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
	"unshare", "setns",
	"reboot", "kexec_load", "kexec_file_load",
	"init_module", "finit_module", "delete_module",
	"bpf", "perf_event_open", "userfaultfd",
	"swapon", "swapoff", "acct", "quotactl",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
	"sethostname", "setdomainname", "syslog", "vhangup",
	"keyctl", "add_key", "request_key",
	"open_by_handle_at", "name_to_handle_at",
	"iopl", "ioperm", "fanotify_init", "lookup_dcookie",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
}

// denyFilter is the assembled filter: a denied call fails with EPERM (a
// clear error for the program rather than a kill the judge must explain).
// Built once; the program is shared read-only by every start.
var denyFilter = sync.OnceValues(func() (*syscall.SockFprog, error) {
	filter, err := denyProgram()
	if err != nil {
		return nil, err
	}
	return filter.SockFprog(), nil
})

// newNamespaceFlags are the clone flags that make a namespace. clone with
// any of them fails with EPERM, as in the default profiles of container
// runtimes: the uid is unprivileged, but a new user namespace would give
// the child every capability inside it (and the kernel surface that
// comes with them). CLONE_NEWTIME (0x80) is not here: for clone its bit
// lies in the exit-signal byte (CSIGNAL) and the kernel accepts it only
// from clone3 and unshare, both refused outright.
const newNamespaceFlags = unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWPID |
	unix.CLONE_NEWNET | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWCGROUP

// cloneFlagsArg is the index of clone's flags argument: the first
// everywhere (amd64, arm64, …) except s390, where the stack comes first.
func cloneFlagsArg(goarch string) uint32 {
	if goarch == "s390x" || goarch == "s390" {
		return 1
	}
	return 0
}

// denyProgram assembles the filter for this machine's architecture:
//
//   - a system call made through another ABI (on amd64 the i386 one, int
//     0x80; on arm64 AArch32) fails with ENOSYS. The rules below match the
//     native call numbers only, so without this every foreign call, unshare
//     included, would pass;
//   - deniedSyscalls, and clone with a newNamespaceFlags flag, fail with EPERM;
//   - clone3 fails with ENOSYS: its flags sit behind a pointer seccomp
//     cannot read, and ENOSYS makes glibc (threads, posix_spawn) and Go fall
//     back to clone, which the rule above checks;
//   - socket with a family other than Unix, IP and netlink, or netlink with
//     a protocol other than route, fails with EAFNOSUPPORT, and inotify
//     with ENOSYS (see sharedKernelChannels);
//   - a file lock (flock, and fcntl's record and open file description
//     locks) succeeds without locking anything (see lockCommands);
//   - everything else is allowed: threads, fork, vfork, plain clone.
func denyProgram() (gsfilter.Filter, error) {
	native, err := bpfarch.GetInfo("")
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	policy := bpfseccomp.Policy{
		DefaultAction: bpfseccomp.ActionAllow,
		Syscalls: []bpfseccomp.SyscallGroup{{
			Action: bpfseccomp.ActionErrno | bpfseccomp.Action(unix.EPERM),
			Names:  deniedSyscalls,
			NamesWithCondtions: []bpfseccomp.NameWithConditions{{
				Name: "clone",
				Conditions: bpfseccomp.ArgumentConditions{{
					Argument:  cloneFlagsArg(runtime.GOARCH),
					Operation: bpfseccomp.BitsSet,
					Value:     newNamespaceFlags,
				}},
			}},
		}, {
			Action: bpfseccomp.ActionErrno | bpfseccomp.Action(unix.ENOSYS),
			Names:  existing(native, []string{"clone3", "inotify_init", "inotify_init1"}),
		}, {
			Action:             bpfseccomp.ActionErrno | bpfseccomp.Action(unix.EAFNOSUPPORT),
			NamesWithCondtions: socketRules,
		}},
	}
	rules, err := policy.Assemble()
	if err != nil {
		return nil, fmt.Errorf("seccomp: assemble deny-list: %w", err)
	}
	filter, err := gsseccomp.ExportBPF(rules)
	if err != nil {
		return nil, fmt.Errorf("seccomp: export deny-list: %w", err)
	}
	// The assembled rules allow a call of any other architecture (their
	// first check jumps to the default action); refuse it before them.
	archGuard := gsfilter.Filter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: seccompDataArchOffset},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: 1, K: uint32(native.ID)},
		{Code: unix.BPF_RET | unix.BPF_K, K: uint32(bpfseccomp.ActionErrno) | uint32(unix.ENOSYS)},
	}
	locks, err := lockRules(native)
	if err != nil {
		return nil, err
	}
	return append(append(archGuard, locks...), filter...), nil
}

// Sandboxes that run at once share the kernel, and some of what it offers
// is not divided by their namespaces; the filter closes what a program can
// use to signal another sandbox (docs/sandbox.md lists what remains):
//
//   - socket families: vsock is not scoped by network namespace on every
//     kernel, and the rarer families are no judged program's business. Unix,
//     IP and netlink stay (each sandbox has its own network namespace);
//     netlink only for route (glibc's getaddrinfo asks it), since other
//     protocols (NETLINK_USERSOCK) let unprivileged sockets message each
//     other in a shared namespace (as sandboxes with Spec.Network once
//     shared the host's).
//   - inotify: a watch on a file every sandbox can read sees another open it.
//   - file locks: every sandbox can open the same read-only system files,
//     and flock works on a read-only descriptor, so one could hold a lock
//     and another test it. A lock request succeeds without locking (a
//     program alone in its sandbox loses nothing; two processes of one
//     sandbox lose mutual exclusion), so no sandbox can ever hold one.
var socketRules = []bpfseccomp.NameWithConditions{{
	Name: "socket",
	Conditions: bpfseccomp.ArgumentConditions{
		{Argument: 0, Operation: bpfseccomp.NotEqual, Value: unix.AF_UNIX},
		{Argument: 0, Operation: bpfseccomp.NotEqual, Value: unix.AF_INET},
		{Argument: 0, Operation: bpfseccomp.NotEqual, Value: unix.AF_INET6},
		{Argument: 0, Operation: bpfseccomp.NotEqual, Value: unix.AF_NETLINK},
	},
}, {
	Name: "socket",
	Conditions: bpfseccomp.ArgumentConditions{
		{Argument: 0, Operation: bpfseccomp.Equal, Value: unix.AF_NETLINK},
		{Argument: 2, Operation: bpfseccomp.NotEqual, Value: unix.NETLINK_ROUTE},
	},
}}

// lockCommands are fcntl's commands that take a lock: they succeed
// without locking (see socketRules). F_NOTIFY (dnotify, like inotify)
// fails with EINVAL, as on a kernel without it.
var lockCommands = []uint32{unix.F_SETLK, unix.F_SETLKW, unix.F_OFD_SETLK, unix.F_OFD_SETLKW}

// lockRules is raw BPF for flock and fcntl's lock commands: they return
// 0 without running (the assembler turns errno 0 into EPERM). fcntl's
// command is read by the kernel as a 32-bit unsigned int, so only the low
// half of the argument is compared (the assembler compares all 64 bits,
// and a program could set the high half to slip past it).
func lockRules(native *bpfarch.Info) (gsfilter.Filter, error) {
	flock, ok1 := native.SyscallNames["flock"]
	fcntl, ok2 := native.SyscallNames["fcntl"]
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("seccomp: no flock or fcntl on %s", native.Name)
	}
	low := uint32(seccompDataArgsOffset + 8) // args[1]
	if !littleEndian() {
		low += 4
	}
	const (
		next      = iota // past this block, to the assembled rules
		retZero          // return 0
		retEINVAL        // fail with EINVAL
	)
	type jeq struct {
		k      uint32
		target int // next, retZero or retEINVAL; a miss falls through
	}
	var checks []jeq
	for _, cmd := range lockCommands {
		checks = append(checks, jeq{cmd, retZero})
	}
	checks = append(checks, jeq{unix.F_NOTIFY, retEINVAL})
	// Layout: ld nr; jeq flock; jeq fcntl (else next); ld low; checks;
	// ja next; ret 0; ret EINVAL.
	n := 4 + len(checks) + 3
	at := map[int]int{next: n, retZero: n - 2, retEINVAL: n - 1}
	jump := func(from, target int) uint8 { return uint8(at[target] - from - 1) }
	f := gsfilter.Filter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // the call number
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: jump(1, retZero), K: uint32(flock)},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jf: jump(2, next), K: uint32(fcntl)},
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: low},
	}
	for _, c := range checks {
		f = append(f, gsfilter.Filter{{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: jump(len(f), c.target), K: c.k}}...)
	}
	return append(f, gsfilter.Filter{
		{Code: unix.BPF_JMP | unix.BPF_JA, K: uint32(jump(len(f), next))},
		{Code: unix.BPF_RET | unix.BPF_K, K: uint32(bpfseccomp.ActionErrno)},
		{Code: unix.BPF_RET | unix.BPF_K, K: uint32(bpfseccomp.ActionErrno) | uint32(unix.EINVAL)},
	}...), nil
}

// existing is names without the calls this architecture does not have.
func existing(native *bpfarch.Info, names []string) []string {
	var out []string
	for _, n := range names {
		if _, ok := native.SyscallNames[n]; ok {
			out = append(out, n)
		}
	}
	return out
}

func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// Offsets in struct seccomp_data: the audit arch follows the 32-bit call
// number; the six 64-bit arguments follow the instruction pointer.
const (
	seccompDataArchOffset = 4
	seccompDataArgsOffset = 16
)

// seccompSupported reports whether the kernel has seccomp filters.
func seccompSupported() bool { return bpfseccomp.Supported() }
