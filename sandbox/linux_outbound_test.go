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
	"slices"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/internal/testnet"
)

// requireOutbound fails or skips (TETHER_REQUIRE_SANDBOX_NETWORK) the test
// on a machine without the tools outbound networking needs, or that cannot
// make the network namespaces the tests make.
func requireOutbound(t *testing.T) {
	t.Helper()
	_, err := findOutboundTools()
	testnet.Require(t, err)
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
			testOutbound(t, requireLinuxRunnerWith(t, &LinuxOptions{WarmStarts: warm}))
		})
	}
}

func testOutbound(t *testing.T, r Runner) {
	peer := testnet.New(t)
	server := testnet.ServeBanner(t, peer.Listen(t), "from-netns")
	hostLn, err := net.Listen("tcp4", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	host := testnet.ServeBanner(t, hostLn, "from-host")
	hostPort := host.Port()

	blocked := []string{
		netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), hostPort).String(),
		netip.AddrPortFrom(netip.MustParseAddr("10.0.2.2"), hostPort).String(),
		netip.AddrPortFrom(netip.MustParseAddr(slirpDNS), hostPort).String(),
		netip.AddrPortFrom(peer.HostSide, hostPort).String(),
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
	allowed := peer.Prefix // holds the host's side of the veth too
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

// What `tether doctor` reports for sandbox_network comes from a real set-up
// of a sandbox's network, which works on a machine with the tools, as root
// and (TestRootlessOutboundUnprivileged) as another user.
func TestProbeOutbound(t *testing.T) {
	testenv.Require(t, testnet.RequireEnv, CheckNetwork())
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
