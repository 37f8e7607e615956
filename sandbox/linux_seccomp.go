//go:build linux

package sandbox

import (
	"fmt"
	"runtime"
	"sync"
	"syscall"

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
			Names:  []string{"clone3"},
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
	return append(archGuard, filter...), nil
}

// seccompDataArchOffset is where struct seccomp_data holds the audit arch
// (after the 32-bit call number).
const seccompDataArchOffset = 4

// seccompSupported reports whether the kernel has seccomp filters.
func seccompSupported() bool { return bpfseccomp.Supported() }
