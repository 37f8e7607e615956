//go:build linux

package sandbox

import (
	"fmt"
	"sync"
	"syscall"

	gsseccomp "github.com/criyle/go-sandbox/pkg/seccomp/libseccomp"
	bpfseccomp "github.com/elastic/go-seccomp-bpf"
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
	policy := bpfseccomp.Policy{
		DefaultAction: bpfseccomp.ActionAllow,
		Syscalls: []bpfseccomp.SyscallGroup{{
			Action: bpfseccomp.ActionErrno | bpfseccomp.Action(unix.EPERM),
			Names:  deniedSyscalls,
		}},
	}
	program, err := policy.Assemble()
	if err != nil {
		return nil, fmt.Errorf("seccomp: assemble deny-list: %w", err)
	}
	filter, err := gsseccomp.ExportBPF(program)
	if err != nil {
		return nil, fmt.Errorf("seccomp: export deny-list: %w", err)
	}
	return filter.SockFprog(), nil
})

// seccompSupported reports whether the kernel has seccomp filters.
func seccompSupported() bool { return bpfseccomp.Supported() }
