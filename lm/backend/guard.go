package backend

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrAddressRefused: a Guard refused the address a backend's name led to.
var ErrAddressRefused = errors.New("address refused")

// Guard is what a backend that a problem declares (not the operator) may
// reach: public addresses only, plus the operator's Allow list. It is
// checked on the address actually dialled, after every name lookup, so a
// name that resolves (or is rebound) to 127.0.0.1 is refused like the
// address itself.
type Guard struct {
	// Allow lists prefixes (an address is a /32 or /128) reachable even
	// though they are loopback, private, link-local or otherwise not public.
	Allow []netip.Prefix
}

// nonPublic are the ranges a Guard refuses besides what netip.Addr's own
// methods find (loopback, link-local, multicast, private, unspecified):
// "this network" (0.0.0.1 reaches the host), shared address space (CGNAT),
// IETF protocol assignments, benchmarking, reserved, and the IPv6 forms that
// carry an IPv4 address (NAT64, 6to4, Teredo).
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2001::/32"),
	netip.MustParsePrefix("2002::/16"),
}

// Public reports whether addr is a globally reachable unicast address:
// not loopback, private, link-local (where cloud metadata answers,
// 169.254.169.254), multicast or any of the special ranges above.
func Public(addr netip.Addr) bool {
	addr = addr.Unmap()
	if !addr.IsGlobalUnicast() || addr.IsPrivate() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(addr) {
			return false
		}
	}
	return true
}

// Allows reports whether g lets a backend connect to addr.
func (g *Guard) Allows(addr netip.Addr) bool {
	addr = addr.Unmap()
	for _, p := range g.Allow {
		if p.Contains(addr) {
			return true
		}
	}
	return Public(addr)
}

// control is a net.Dialer Control: it runs on the resolved address, just
// before the connection is made.
func (g *Guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("lm backend: %w: cannot read the address %q", ErrAddressRefused, address)
	}
	if !g.Allows(ap.Addr()) {
		return fmt.Errorf("lm backend: %w: %s is not a public address; a problem's own backend may not reach it (the operator's --allow-lm-hosts can allow it)",
			ErrAddressRefused, ap.Addr())
	}
	return nil
}

// Client is an HTTP client that dials only what g allows, uses no proxy
// (a proxy would reach inner addresses on the backend's behalf) and
// follows no redirect (a 302 would turn the POST into a GET to anywhere):
// a redirect is answered as its status.
func (g *Guard) Client() *http.Client {
	dialer := &net.Dialer{Timeout: 30 * time.Second, Control: g.control}
	return &http.Client{
		Transport: &http.Transport{
			DialContext:         dialer.DialContext,
			TLSHandshakeTimeout: 10 * time.Second,
			ForceAttemptHTTP2:   true,
			MaxIdleConns:        16,
			IdleConnTimeout:     90 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// ParseAllow reads the operator's allow-list entries: IP addresses
// ("127.0.0.1", "::1") or CIDR prefixes ("10.0.0.0/8"). Names are refused:
// a name may resolve anywhere by the time it is dialled.
func ParseAllow(entries []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(entries))
	for _, e := range entries {
		if p, err := netip.ParsePrefix(e); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(e)
		if err != nil {
			return nil, fmt.Errorf("%q: want an IP address (127.0.0.1) or a CIDR prefix (10.0.0.0/8); host names are not accepted", e)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
