//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tether-dev/tether/internal/testenv"
)

// requireOutbound fails or skips (TETHER_REQUIRE_SANDBOX_NETWORK) the test
// on a machine without the tools outbound networking needs, and without
// iproute2, which the tests use to make a network namespace of their own.
func requireOutbound(t *testing.T) {
	t.Helper()
	_, err := findOutboundTools()
	if err == nil {
		if _, lerr := exec.LookPath("ip"); lerr != nil {
			err = fmt.Errorf("no ip command (apt-get install -y iproute2): %w", lerr)
		}
	}
	testenv.Require(t, "TETHER_REQUIRE_SANDBOX_NETWORK", err)
}

// A sandbox with Network reaches a server in another network namespace
// when its address is allowed, and not when it is not (a private range);
// it never reaches a listener of the host's, whether through 127.0.0.1,
// slirp4netns' gateway (10.0.2.2, which leads to the host's loopback
// unless disabled), the other ports of its DNS forwarder (10.0.2.3), or
// any of the host's own addresses, even one the allow-list covers. No
// packet leaves the machine: the server's namespace and its veth are the
// test's own.
func TestLinuxOutboundNetwork(t *testing.T) {
	requireOutbound(t)
	for _, warm := range []int{0, 1} {
		t.Run(fmt.Sprintf("warm%d", warm), func(t *testing.T) {
			r := requireLinuxRunnerWith(t, &LinuxOptions{WarmStarts: warm})
			peer := newTestNetNS(t)
			server := serveBanner(t, peer.listen(t), "from-netns")
			hostLn, err := net.Listen("tcp4", "0.0.0.0:0")
			if err != nil {
				t.Fatal(err)
			}
			host := serveBanner(t, hostLn, "from-host")
			hostPort := host.Port()

			blocked := []string{
				netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), hostPort).String(),
				netip.AddrPortFrom(netip.MustParseAddr("10.0.2.2"), hostPort).String(),
				netip.AddrPortFrom(netip.MustParseAddr(slirpDNS), hostPort).String(),
				netip.AddrPortFrom(peer.hostSide, hostPort).String(),
			}
			own, err := hostIPv4Addrs()
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range own {
				if target := netip.AddrPortFrom(a, hostPort).String(); !slices.Contains(blocked, target) {
					blocked = append(blocked, target)
				}
			}
			allowed := peer.prefix // holds the host's side of the veth too
			got := connectFromSandbox(t, r, Spec{Network: true, NetworkAllow: []netip.Prefix{allowed}}, append([]string{server.String()}, blocked...))
			if want := "ok from-netns"; got[server.String()] != want {
				t.Errorf("allowed %s: got %q, want %q", server, got[server.String()], want)
			}
			for _, target := range blocked {
				if strings.HasPrefix(got[target], "ok") {
					t.Errorf("%s (a listener of the host's): %q, want it unreachable", target, got[target])
				}
			}

			got = connectFromSandbox(t, r, Spec{Network: true}, []string{server.String()})
			if strings.HasPrefix(got[server.String()], "ok") {
				t.Errorf("%s (a private address, not allowed): %q, want it unreachable", server, got[server.String()])
			}
		})
	}
}

// The allow-list takes IPv4 only, with an error naming the entry.
func TestLinuxOutboundAllowListIPv4Only(t *testing.T) {
	r := requireLinuxRunner(t)
	_, err := r.Start(context.Background(), Spec{Args: []string{"true"}, Network: true,
		NetworkAllow: []netip.Prefix{netip.MustParsePrefix("fd00::/8")}})
	if err == nil || !strings.Contains(err.Error(), `"fd00::/8"`) || !strings.Contains(err.Error(), "IPv4") {
		t.Fatalf("Start with an IPv6 allow-list entry: %v", err)
	}
}

// connectFromSandbox runs a program in a sandbox of spec (Args are set
// here) that connects to each target and reports, per target, "ok
// <first line>" or "failed <errno name>".
func connectFromSandbox(t *testing.T, r Runner, spec Spec, targets []string) map[string]string {
	t.Helper()
	spec.Args = append(pyArgs(`
import errno, socket, sys
for t in sys.argv[1:]:
    host, port = t.rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=5) as c:
            c.settimeout(5)
            line = c.makefile().readline().strip()
            print(t, "ok", line, flush=True)
    except socket.timeout:
        print(t, "failed timeout", flush=True)
    except OSError as e:
        print(t, "failed", errno.errorcode.get(e.errno, e.errno), flush=True)
`), targets...)
	res := run(t, r, spec, "")
	got := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(res.stdout))
	for sc.Scan() {
		target, rest, _ := strings.Cut(sc.Text(), " ")
		got[target] = rest
	}
	if len(got) != len(targets) {
		t.Fatalf("stdout %q, stderr %q: want a line per target of %v", res.stdout, res.stderr, targets)
	}
	return got
}

// serveBanner accepts on ln until the test ends, writing banner and a
// newline to every connection; it returns ln's address.
func serveBanner(t *testing.T, ln net.Listener, banner string) netip.AddrPort {
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

// testNetNS is a network namespace the test made, joined to the host's by
// a veth pair on a /30 of its own.
type testNetNS struct {
	name     string
	prefix   netip.Prefix // the veth pair's /30
	hostSide netip.Addr   // the host's end: one of the host's own addresses
	inside   netip.Addr   // the namespace's end
}

var testNetNSSeq atomic.Uint32

// newTestNetNS makes the namespace (ip netns add) and the veth pair, both
// removed when the test ends.
func newTestNetNS(t *testing.T) *testNetNS {
	t.Helper()
	seq := testNetNSSeq.Add(1)
	pid := os.Getpid()
	// 10.213.0.0/16, a /30 from the pid and the sequence: tests of other
	// processes on this machine pick other ones.
	base := netip.AddrFrom4([4]byte{10, 213, byte(pid), byte(((uint32(pid)>>8)*16 + seq*4) % 256)})
	n := &testNetNS{
		name:     fmt.Sprintf("tether-test-%d-%d", pid, seq),
		prefix:   netip.PrefixFrom(base, 30),
		hostSide: base.Next(),
		inside:   base.Next().Next(),
	}
	hostIf, peerIf := fmt.Sprintf("tth%d%d", pid%100000, seq), fmt.Sprintf("ttn%d%d", pid%100000, seq)
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	ip("netns", "add", n.name)
	t.Cleanup(func() {
		// Removing the namespace removes its end of the veth, and with it the pair.
		if out, err := exec.Command("ip", "netns", "del", n.name).CombinedOutput(); err != nil {
			t.Errorf("ip netns del %s: %v: %s", n.name, err, out)
		}
	})
	ip("link", "add", hostIf, "type", "veth", "peer", "name", peerIf, "netns", n.name)
	ip("addr", "add", netip.PrefixFrom(n.hostSide, 30).String(), "dev", hostIf)
	ip("link", "set", hostIf, "up")
	ip("-n", n.name, "addr", "add", netip.PrefixFrom(n.inside, 30).String(), "dev", peerIf)
	ip("-n", n.name, "link", "set", peerIf, "up")
	return n
}

// listen opens a TCP listener inside the namespace, at its end of the
// veth, from a thread that joins the namespace and is then thrown away.
func (n *testNetNS) listen(t *testing.T) net.Listener {
	t.Helper()
	type result struct {
		ln  net.Listener
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread leaves the test's namespace
		f, err := os.Open("/run/netns/" + n.name)
		if err != nil {
			done <- result{err: err}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- result{err: fmt.Errorf("setns %s: %w", n.name, err)}
			return
		}
		ln, err := net.Listen("tcp4", netip.AddrPortFrom(n.inside, 0).String())
		done <- result{ln, err}
	}()
	res := <-done
	if res.err != nil {
		t.Fatal(errors.Join(errors.New("listen in the test's network namespace"), res.err))
	}
	return res.ln
}

// What `tether doctor` reports for sandbox_network comes from a real set-up
// of a sandbox's network, which works on a machine with the tools.
func TestProbeOutbound(t *testing.T) {
	requireOutbound(t)
	requireLinuxRunner(t)
	found, err := probeOutbound()
	if err != nil || !strings.Contains(found, "slirp4netns") || !strings.Contains(found, "nft") {
		t.Fatalf("probeOutbound: %q, %v", found, err)
	}
}

// A sandbox with the network resolves names through slirp4netns' DNS
// forwarder, the one resolver it may reach; one without it keeps the
// host's resolv.conf. The runner's copy goes with the runner.
func TestLinuxOutboundResolvConf(t *testing.T) {
	requireOutbound(t)
	r := requireLinuxRunner(t)
	host, err := os.ReadFile("/etc/resolv.conf")
	if err != nil {
		t.Skipf("no /etc/resolv.conf on this host: %v", err)
	}
	read := pyArgs(`print(open("/etc/resolv.conf").read(), end="")`)
	if res := run(t, r, Spec{Args: read, Network: true}, ""); res.stdout != "nameserver "+slirpDNS+"\n" {
		t.Errorf("with the network: %q (stderr %q)", res.stdout, res.stderr)
	}
	if res := run(t, r, Spec{Args: read}, ""); res.stdout != string(host) {
		t.Errorf("without: %q, want the host's %q", res.stdout, host)
	}
	dir := r.netFiles.dir
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left behind after Close: %v", dir, err)
	}
}
