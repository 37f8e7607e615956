//go:build linux

package testnet

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tether-dev/tether/internal/testenv"
)

// RequireEnv makes a missing piece a failure instead of a skip when "1".
const RequireEnv = "TETHER_REQUIRE_SANDBOX_NETWORK"

// Require skips t, or fails it under RequireEnv=1, when err (what else the
// test needs, may be nil) is set or this machine cannot make a namespace.
func Require(t testing.TB, err error) {
	t.Helper()
	if err == nil && os.Geteuid() != 0 {
		err = errors.New("making a network namespace needs root")
	}
	if err == nil {
		if _, lerr := exec.LookPath("ip"); lerr != nil {
			err = fmt.Errorf("no ip command (apt-get install -y iproute2): %w", lerr)
		}
	}
	testenv.Require(t, RequireEnv, err)
}

// NS is a network namespace the test made (ip netns add), with one end of
// a veth pair on a /30 of its own; the other end is on the host.
type NS struct {
	Name     string
	Prefix   netip.Prefix // the veth pair's /30
	HostSide netip.Addr   // the host's end: one of the host's own addresses
	Inside   netip.Addr   // the namespace's end
}

var seq atomic.Uint32

// New makes the namespace and the veth pair; both go when the test ends.
func New(t testing.TB) *NS {
	t.Helper()
	n := seq.Add(1)
	pid := os.Getpid()
	// In 10.213.0.0/16, a /30 from the pid and the sequence: tests of other
	// processes on this machine pick other ones.
	base := netip.AddrFrom4([4]byte{10, 213, byte(pid), byte(((uint32(pid)>>8)*16 + n*4) % 256)})
	ns := &NS{
		Name:     fmt.Sprintf("tether-test-%d-%d", pid, n),
		Prefix:   netip.PrefixFrom(base, 30),
		HostSide: base.Next(),
		Inside:   base.Next().Next(),
	}
	hostIf, peerIf := fmt.Sprintf("tth%d%d", pid%100000, n), fmt.Sprintf("ttn%d%d", pid%100000, n)
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	ip("netns", "add", ns.Name)
	t.Cleanup(func() {
		// Removing the namespace removes its end of the veth, and with it the pair.
		if out, err := exec.Command("ip", "netns", "del", ns.Name).CombinedOutput(); err != nil {
			t.Errorf("ip netns del %s: %v: %s", ns.Name, err, out)
		}
	})
	ip("link", "add", hostIf, "type", "veth", "peer", "name", peerIf, "netns", ns.Name)
	ip("addr", "add", netip.PrefixFrom(ns.HostSide, 30).String(), "dev", hostIf)
	ip("link", "set", hostIf, "up")
	ip("-n", ns.Name, "addr", "add", netip.PrefixFrom(ns.Inside, 30).String(), "dev", peerIf)
	ip("-n", ns.Name, "link", "set", peerIf, "up")
	return ns
}

// Listen opens a TCP listener inside the namespace, at its end of the
// veth, from a thread that joins the namespace and is then thrown away.
func (ns *NS) Listen(t testing.TB) net.Listener {
	t.Helper()
	type result struct {
		ln  net.Listener
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread leaves the test's namespace
		f, err := os.Open("/run/netns/" + ns.Name)
		if err != nil {
			done <- result{err: err}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- result{err: fmt.Errorf("setns %s: %w", ns.Name, err)}
			return
		}
		ln, err := net.Listen("tcp4", netip.AddrPortFrom(ns.Inside, 0).String())
		done <- result{ln, err}
	}()
	res := <-done
	if res.err != nil {
		t.Fatalf("listen in the test's network namespace %s: %v", ns.Name, res.err)
	}
	return res.ln
}

// ServeBanner accepts on ln until the test ends, writing banner and a
// newline to every connection; it returns ln's address.
func ServeBanner(t testing.TB, ln net.Listener, banner string) netip.AddrPort {
	t.Helper()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte(banner + "\n"))
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return ln.Addr().(*net.TCPAddr).AddrPort()
}
