//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A sandbox with Spec.Network keeps the network namespace of its own that
// every sandbox gets, and reaches out of it through slirp4netns, a
// user-mode network stack the judge starts for it: slirp4netns makes a tap
// device in the namespace (10.0.2.100/24, default route via 10.0.2.2) and
// turns the sandbox's connections into ordinary sockets of its own, opened
// in the judge's namespace. Nothing on the host changes: no veth, no
// forwarding, no firewall rule of the host's.
//
// What the sandbox may reach is decided inside its namespace, where it has
// no capability to change it, by an nftables ruleset loaded before the
// program starts (outboundRuleset; by the judge for the linux runner, by
// the init for the rootless one): loopback stays inside the sandbox;
// slirp4netns' DNS forwarder (10.0.2.3) answers on port 53 only; the
// judge's own addresses are refused; private and special-purpose ranges
// (blockedRanges) are refused unless Spec.NetworkAllow names them; IPv6 is
// refused. slirp4netns runs with --disable-host-loopback (its 10.0.2.2 no
// longer leads to the host's 127.0.0.1), its own mount namespace and
// seccomp filter, and ends when the sandbox does, or with the judge (its
// exit fd is the read end of a pipe only the judge writes: the linux
// runner's lifeline, or the rootless sandbox's own).

// outboundTimeout bounds slirp4netns' start.
const outboundTimeout = 10 * time.Second

// slirpNet is slirp4netns' network inside the sandbox, and slirpDNS its
// DNS forwarder there. Of slirpNet only slirpDNS's port 53 is reachable:
// slirp4netns turns every port of slirpDNS into the same port of the
// host's resolver, which may be a loopback address, whatever the
// allow-list says.
const (
	slirpNet = "10.0.2.0/24"
	slirpDNS = "10.0.2.3"
)

// blockedRanges are what a sandbox with the network cannot reach unless
// allowed: "this network", private (RFC 1918), shared (carrier-grade NAT),
// loopback, link-local (cloud metadata services live there), IETF
// protocol assignments, documentation and benchmarking ranges, multicast
// and the reserved rest.
var blockedRanges = []string{
	"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
	"172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15",
	"198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
}

// outboundTools are the host programs outbound networking needs, found on
// PATH or in the sbin dirs (nft lives in /usr/sbin, which a non-root PATH
// may lack).
type outboundTools struct{ slirp, nft string }

var (
	outboundToolsOnce sync.Once
	outboundToolsVal  outboundTools
	outboundToolsErr  error
)

// findOutboundTools finds slirp4netns and nft once per judge process.
func findOutboundTools() (outboundTools, error) {
	outboundToolsOnce.Do(func() {
		var missing []string
		find := func(name string) string {
			if p, err := exec.LookPath(name); err == nil {
				return p
			}
			for _, dir := range []string{"/usr/sbin", "/sbin", "/usr/bin", "/bin"} {
				if fi, err := os.Stat(dir + "/" + name); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
					return dir + "/" + name
				}
			}
			missing = append(missing, name)
			return ""
		}
		outboundToolsVal = outboundTools{slirp: find("slirp4netns"), nft: find("nft")}
		if len(missing) > 0 {
			outboundToolsErr = fmt.Errorf("no %s on this machine (apt-get install -y slirp4netns nftables)", strings.Join(missing, " and no "))
		}
	})
	return outboundToolsVal, outboundToolsErr
}

// CheckNetwork says what this machine lacks for the linux runner to give a
// sandbox with Spec.Network its network (slirp4netns, nft); nil when it has
// them. `tether doctor` tries a real set-up instead.
func CheckNetwork() error {
	_, err := findOutboundTools()
	return err
}

// outboundPlan is what one sandbox's network is to be.
type outboundPlan struct {
	tools    outboundTools
	allow    []netip.Prefix // Spec.NetworkAllow
	hostOwn  []netip.Addr   // the judge's own IPv4 addresses, refused whatever allow says
	lifeline *os.File       // slirp4netns ends when it reads EOF here
}

// planOutbound checks spec's network fields and, for Spec.Network, returns
// the plan; it runs in the judge's namespace (it lists the host's
// addresses). nil without Spec.Network.
func planOutbound(spec Spec, lifeline *os.File) (*outboundPlan, error) {
	if err := checkNetworkAllow(spec.NetworkAllow); err != nil {
		return nil, err
	}
	if !spec.Network {
		return nil, nil
	}
	tools, err := findOutboundTools()
	if err != nil {
		return nil, fmt.Errorf("the program asks for the network (runtime_config.evaluator.network.enabled), which needs outbound networking: %w; `tether doctor` checks it", err)
	}
	own, err := hostIPv4Addrs()
	if err != nil {
		return nil, err
	}
	return &outboundPlan{tools: tools, allow: spec.NetworkAllow, hostOwn: own, lifeline: lifeline}, nil
}

// checkNetworkAllow refuses what the sandbox's network cannot carry.
func checkNetworkAllow(allow []netip.Prefix) error {
	for _, p := range allow {
		if !p.IsValid() || !p.Addr().Is4() {
			return fmt.Errorf("network allow-list entry %q: only IPv4 addresses and CIDRs can be allowed (a sandbox's network has no IPv6)", p)
		}
	}
	return nil
}

// hostIPv4Addrs are the IPv4 addresses of the judge's network namespace.
func hostIPv4Addrs() ([]netip.Addr, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, fmt.Errorf("list the host's addresses (to keep sandboxes off them): %w", err)
	}
	var out []netip.Addr
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		if ip, ok := netip.AddrFromSlice(ipn.IP); ok && ip.Unmap().Is4() {
			out = append(out, ip.Unmap())
		}
	}
	return out, nil
}

// outboundRuleset is the nftables ruleset of the sandbox's namespace. Only
// output is filtered: nothing reaches the namespace from outside but the
// answers slirp4netns relays.
func (o *outboundPlan) outboundRuleset() string {
	var b strings.Builder
	b.WriteString("table inet tether {\n")
	set := func(name string, elems []string) {
		fmt.Fprintf(&b, "\tset %s {\n\t\ttype ipv4_addr\n\t\tflags interval\n", name)
		if len(elems) > 0 {
			fmt.Fprintf(&b, "\t\telements = { %s }\n", strings.Join(elems, ", "))
		}
		b.WriteString("\t}\n")
	}
	var own, allow []string
	for _, a := range o.hostOwn {
		own = append(own, a.String())
	}
	for _, p := range o.allow {
		allow = append(allow, p.Masked().String())
	}
	set("host_own", own)
	set("allowed", allow)
	set("blocked", blockedRanges)
	b.WriteString("\tchain output {\n\t\ttype filter hook output priority 0; policy drop;\n")
	for _, rule := range []string{
		`oifname "lo" accept`,
		`meta nfproto ipv6 reject with icmpx admin-prohibited`,
		`ip daddr ` + slirpDNS + ` meta l4proto { tcp, udp } th dport 53 accept`,
		`ip daddr @host_own meta l4proto tcp reject with tcp reset`,
		`ip daddr @host_own reject with icmpx admin-prohibited`,
		`ip daddr ` + slirpNet + ` meta l4proto tcp reject with tcp reset`,
		`ip daddr ` + slirpNet + ` reject with icmpx admin-prohibited`,
		`ip daddr @allowed oifname "tap0" accept`,
		`ip daddr @blocked meta l4proto tcp reject with tcp reset`,
		`ip daddr @blocked reject with icmpx admin-prohibited`,
		`oifname "tap0" accept`,
	} {
		b.WriteString("\t\t" + rule + "\n")
	}
	b.WriteString("\t}\n}\n")
	return b.String()
}

// netFiles is a runner's dir of the files a sandbox with the network sees
// in place of the host's: an /etc/resolv.conf naming slirp4netns' DNS
// forwarder (the host's may name a resolver on its loopback or in a
// private range, neither reachable). Named like the runner's sandbox dirs,
// so that the next runner removes a killed judge's.
type netFiles struct {
	once sync.Once
	dir  string
	err  error
}

// bind returns spec with the files bound over the host's, making them the
// first time.
func (f *netFiles) bind(spec Spec, tempRoot string) (Spec, error) {
	f.once.Do(func() {
		if f.dir, f.err = mkdirOwnedTemp(tempRoot, "net-*"); f.err != nil {
			return
		}
		f.err = os.WriteFile(f.dir+"/resolv.conf", []byte("nameserver "+slirpDNS+"\n"), 0o644)
	})
	if f.err != nil {
		return spec, fmt.Errorf("the sandbox network's resolv.conf: %w", f.err)
	}
	spec.Binds = append(slices.Clip(spec.Binds), Bind{Path: f.dir + "/resolv.conf", Target: "/etc/resolv.conf"})
	return spec, nil
}

// remove removes the dir, if it was made.
func (f *netFiles) remove() error {
	if f.dir == "" {
		return nil
	}
	return os.RemoveAll(f.dir)
}

// outboundNet is a sandbox's running slirp4netns.
type outboundNet struct {
	cmd    *exec.Cmd
	stderr *cappedBuffer
}

// start runs on the sandbox's start thread, already in the sandbox's new
// network namespace: it loads the ruleset, then starts slirp4netns and
// waits until it has configured the namespace.
func (o *outboundPlan) start() (*outboundNet, error) {
	ns, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		return nil, fmt.Errorf("open the sandbox's network namespace: %w", err)
	}
	defer ns.Close()
	if err := o.loadRuleset(ns); err != nil {
		return nil, err
	}
	return o.startSlirp(ns, 0)
}

// loadRuleset runs nft in ns on a thread of its own that joins ns and is
// then thrown away, so that nft is not born in the sandbox's cgroup.
func (o *outboundPlan) loadRuleset(ns *os.File) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread leaves the judge's namespace
		if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- fmt.Errorf("join the sandbox's network namespace: %w", err)
			return
		}
		done <- loadNftRuleset(o.tools.nft, o.outboundRuleset())
	}()
	return <-done
}

// loadNftRuleset runs nft with ruleset in the caller's network namespace.
func loadNftRuleset(nft, ruleset string) error {
	cmd := exec.Command(nft, "-f", "-")
	cmd.Stdin = strings.NewReader(ruleset)
	cmd.Env = []string{}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("load the sandbox's firewall with %s: %w: %s", nft, err, bytes.TrimSpace(out))
	}
	return nil
}

// startForInit starts slirp4netns on the namespaces of the rootless
// sandbox's init (pid: the judge's child, not reaped before the sandbox
// ends, so the pid cannot be another's), with exit as its exit fd. The
// init loads the ruleset itself (rootlessConfig.Firewall): a judge with
// threads cannot join a user namespace, and only in the init's is there
// CAP_NET_ADMIN over the sandbox's network namespace.
func (o *outboundPlan) startForInit(pid int, exit *os.File) (*outboundNet, error) {
	plan := *o
	plan.lifeline = exit
	return plan.startSlirp(nil, pid)
}

// startSlirp starts slirp4netns from a thread in the judge's namespace
// (any but this locked one: its sockets must be the host's), and waits for
// its ready byte. Its target is the network namespace ns when not nil,
// else the namespaces of process pid (user and network: the rootless
// sandbox's init).
func (o *outboundPlan) startSlirp(ns *os.File, pid int) (*outboundNet, error) {
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("slirp4netns ready pipe: %w", err)
	}
	defer readyR.Close()
	n := &outboundNet{stderr: &cappedBuffer{max: 4096}}
	// fds 3, 4 (and 5) in slirp4netns.
	args := []string{"--configure", "--mtu=65520", "--disable-host-loopback",
		"--enable-sandbox", "--enable-seccomp", "--ready-fd=3", "--exit-fd=4"}
	files := []*os.File{readyW, o.lifeline}
	if ns != nil {
		args = append(args, "--netns-type=path", "/proc/self/fd/5")
		files = append(files, ns)
	} else {
		args = append(args, strconv.Itoa(pid))
	}
	n.cmd = exec.Command(o.tools.slirp, append(args, "tap0")...)
	n.cmd.ExtraFiles = files
	n.cmd.Env = []string{}
	n.cmd.Stderr = n.stderr
	started := make(chan error, 1)
	go func() { started <- n.cmd.Start() }()
	err = <-started
	readyW.Close()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", o.tools.slirp, err)
	}
	readyR.SetReadDeadline(time.Now().Add(outboundTimeout))
	var b [1]byte
	if _, err := readyR.Read(b[:]); err != nil || b[0] != '1' {
		n.stop()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			err = fmt.Errorf("not ready within %v", outboundTimeout)
		}
		return nil, fmt.Errorf("slirp4netns did not set up the sandbox's network (%v): %s", err, bytes.TrimSpace(n.stderr.Bytes()))
	}
	return n, nil
}

// stop ends slirp4netns and waits for it. Safe on nil.
func (n *outboundNet) stop() {
	if n == nil {
		return
	}
	n.cmd.Process.Kill()
	n.cmd.Wait()
}

// cappedBuffer keeps the first max bytes written to it.
type cappedBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *cappedBuffer) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
}

// probeOutbound sets up once what a sandbox with Spec.Network gets, and
// tears it down: what `tether doctor` reports. As root, in a network
// namespace of its own that no program runs in (the linux sandbox's way);
// otherwise a rootless sandbox with the network runs true.
func probeOutbound() (string, error) {
	tools, err := findOutboundTools()
	if err != nil {
		return "", err
	}
	if os.Geteuid() != 0 {
		if err := probeRootlessOutbound(); err != nil {
			return "", err
		}
		return describeOutboundTools(tools), nil
	}
	lifeline, hold, err := os.Pipe()
	if err != nil {
		return "", err
	}
	defer lifeline.Close()
	defer hold.Close()
	plan := &outboundPlan{tools: tools, lifeline: lifeline}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread leaves the judge's namespace
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			done <- fmt.Errorf("make a network namespace: %w", err)
			return
		}
		n, err := plan.start()
		n.stop()
		done <- err
	}()
	if err := <-done; err != nil {
		return "", err
	}
	return describeOutboundTools(tools), nil
}

func probeRootlessOutbound() error {
	r, err := NewRootless()
	if err != nil {
		return fmt.Errorf("not root, and the rootless sandbox cannot run: %w", err)
	}
	defer r.Close()
	p, err := r.Start(context.Background(), Spec{Args: []string{"true"}, Network: true})
	if err != nil {
		return err
	}
	defer p.Close()
	p.Stdin().Close()
	u, err := p.Wait()
	if err == nil && u.ExitCode != 0 {
		err = fmt.Errorf("true exited %d in a rootless sandbox with the network", u.ExitCode)
	}
	return err
}

// describeOutboundTools names the tools and slirp4netns' version.
func describeOutboundTools(tools outboundTools) string {
	version, _ := exec.Command(tools.slirp, "--version").Output()
	first, _, _ := strings.Cut(string(version), "\n")
	return fmt.Sprintf("%s (%s) and %s", tools.slirp, strings.TrimSpace(first), tools.nft)
}
