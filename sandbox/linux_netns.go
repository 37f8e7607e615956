//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Every sandbox without Spec.Network gets a network namespace of its own:
// its start thread unshares one before it starts the sandbox's two
// processes (a prepared thread, linux_warm.go, does so ahead of the start).
// Its loopback device stays down: no address, no route, so a connect to
// 127.0.0.1 fails. A namespace costs a few milliseconds to make (off the
// start's path for a prepared thread) and its teardown runs in a kernel
// work queue after the last process leaves.
//
// An earlier design had every such sandbox join one shared empty namespace
// and kept abstract Unix sockets apart with Landlock. That is not enough:
// what a network namespace scopes is more than connections. Two sandboxes
// in one namespace shared the names of abstract sockets and the ports (a
// bind that fails with EADDRINUSE is a signal), and NETLINK_USERSOCK
// carried messages between them. Each sandbox still gets the Landlock
// scoping where the kernel has it: a sandbox with Spec.Network shares the
// host's namespace, and must not reach the host's abstract sockets.

// landlockABI is the kernel's Landlock ABI version, 0 when Landlock is off.
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// openHostNetNS opens the judge's network namespace. Not /proc/self: that
// is the main thread's, and a start that ran on the main thread left it in
// a sandbox's namespace (the runtime parks a main thread that ends locked
// rather than ending it). Every thread that can run this goroutine is still
// in the judge's.
func openHostNetNS() (*os.File, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	f, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		return nil, fmt.Errorf("open the judge's network namespace: %w", err)
	}
	return f, nil
}

// netPlan is how one start sets up the network of its start thread, which
// its children inherit.
type netPlan struct {
	host       bool     // Spec.Network: the judge's own namespace
	hostNS     *os.File // the judge's namespace
	scope      bool     // the kernel can scope abstract Unix sockets
	fromNewNet bool     // the thread is already in a new namespace (prepared)
}

// apply runs on the locked, throw-away start thread, after
// prepareStartThread: back to the host's namespace for a prepared thread
// whose sandbox has Spec.Network, then the Landlock scoping.
func (n netPlan) apply() error {
	if n.host && n.fromNewNet {
		if err := unix.Setns(int(n.hostNS.Fd()), unix.CLONE_NEWNET); err != nil {
			return fmt.Errorf("join the host's network namespace: %w", err)
		}
	}
	if n.scope {
		return restrictAbstractSockets()
	}
	return nil
}

// restrictAbstractSockets puts the calling thread in a new Landlock domain
// that handles no file or network access, only scoping. The thread needs
// no_new_privs or CAP_SYS_ADMIN; the judge runs as root.
func restrictAbstractSockets() error {
	attr := unix.LandlockRulesetAttr{Scoped: unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock: create ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock: restrict self: %w", errno)
	}
	return nil
}
