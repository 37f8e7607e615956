//go:build linux

package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Every sandbox gets a network namespace of its own: its start thread
// unshares one before it starts the sandbox's two processes (a prepared
// thread, linux_warm.go, does so ahead of the start). Without Spec.Network
// its loopback device stays down: no address, no route, so a connect to
// 127.0.0.1 fails. With Spec.Network it gets outbound access only
// (linux_outbound.go), never the judge's own namespace. A namespace costs a few milliseconds to make (off the
// start's path for a prepared thread) and its teardown runs in a kernel
// work queue after the last process leaves.
//
// An earlier design had every such sandbox join one shared empty namespace
// and kept abstract Unix sockets apart with Landlock. That is not enough:
// what a network namespace scopes is more than connections. Two sandboxes
// in one namespace shared the names of abstract sockets and the ports (a
// bind that fails with EADDRINUSE is a signal), and NETLINK_USERSOCK
// carried messages between them. Each sandbox also gets the Landlock
// scoping where the kernel has it.

// landlockABI is the kernel's Landlock ABI version, 0 when Landlock is off.
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// netPlan is how one start sets up the network namespace of its start
// thread, which its children inherit.
type netPlan struct {
	outbound *outboundPlan // Spec.Network: outbound access (linux_outbound.go); nil for none
	scope    bool          // the kernel can scope abstract Unix sockets
}

// apply runs on the locked, throw-away start thread, in the sandbox's new
// network namespace, after prepareStartThread: outbound access for a
// sandbox with Spec.Network, then the Landlock scoping.
func (n netPlan) apply(p *linuxProcess) error {
	if n.outbound != nil {
		var err error
		if p.outbound, err = n.outbound.start(); err != nil {
			return err
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
