//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A new network namespace per start costs about 3 ms here (its creation
// and its teardown when the last process leaves; the kernel tears network
// namespaces down in a shared work queue, which on many kernels is slow).
// So when the kernel can keep sandboxes apart inside one namespace, the
// linux runner makes ONE empty network namespace (only a loopback device,
// left down: no address, no route, so a connect to 127.0.0.1 fails) and every
// sandbox without Spec.Network joins it.
//
// The trade-off: what a network namespace scopes is then shared by the
// sandboxes of one runner. IP sockets are useless there (no interface is
// up), but abstract Unix sockets are per namespace, so two sandboxes could
// talk through one. Each start therefore also gets a Landlock domain of its
// own that scopes abstract Unix sockets (LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET,
// Landlock ABI 6, Linux 6.12): a program can connect only to abstract
// sockets made inside its own sandbox. A kernel without that scoping keeps
// a fresh network namespace per start.

// landlockScopeABI is the first Landlock ABI with IPC scoping.
const landlockScopeABI = 6

// landlockABI is the kernel's Landlock ABI version, 0 when Landlock is off.
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// newSharedNetNS makes the empty network namespace and returns a handle
// that keeps it alive until closed. unshare(CLONE_NEWNET) moves only the
// calling thread, so it runs on a locked thread that is never given back to
// the Go scheduler (the runtime discards it when the goroutine ends).
func newSharedNetNS() (*os.File, error) {
	type result struct {
		f   *os.File
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: see above
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			done <- result{err: fmt.Errorf("unshare network namespace: %w", err)}
			return
		}
		f, err := os.Open("/proc/thread-self/ns/net")
		done <- result{f, err}
	}()
	res := <-done
	return res.f, res.err
}

// joinSandboxNetwork is called on the locked, throw-away start thread:
// it joins the shared namespace and puts the thread (and so every process
// it starts) in a new Landlock domain scoping abstract Unix sockets.
func joinSandboxNetwork(netns *os.File) error {
	if err := unix.Setns(int(netns.Fd()), unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("join the sandbox network namespace: %w", err)
	}
	return restrictAbstractSockets()
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
