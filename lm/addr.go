package lm

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
)

// An address is "HOST:PORT" (TCP) or "unix:PATH" (a Unix socket), in
// flags, in TETHER_LM_ADDR and in the Python SDK alike.

// ParseAddr splits an address into a network and a net.Dial address.
func ParseAddr(addr string) (network, address string, err error) {
	if path, ok := strings.CutPrefix(addr, "unix:"); ok {
		if path == "" {
			return "", "", fmt.Errorf("lm: address %q: empty socket path", addr)
		}
		return "unix", path, nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return "", "", fmt.Errorf("lm: address %q: want HOST:PORT or unix:PATH: %w", addr, err)
	}
	return "tcp", addr, nil
}

// Listen listens on addr. For a Unix socket a stale socket file left by a
// dead handler is removed first (a live one or any other file is an
// error), and the new socket is made 0600.
func Listen(ctx context.Context, addr string) (net.Listener, error) {
	network, address, err := ParseAddr(addr)
	if err != nil {
		return nil, err
	}
	if network == "unix" {
		if fi, err := os.Lstat(address); err == nil {
			if fi.Mode()&os.ModeSocket == 0 {
				return nil, fmt.Errorf("lm: listen %s: file exists and is not a socket", address)
			}
			if c, err := net.Dial("unix", address); err == nil {
				c.Close()
				return nil, fmt.Errorf("lm: listen %s: a live server already listens there", address)
			}
			os.Remove(address)
		}
	}
	// No TCP keep-alive probes: a peer that stays silent is closed by the
	// server's IdleTimeout or ReadTimeout anyway (and on loopback a peer
	// that goes away is seen at once), so each accepted connection is
	// spared four setsockopt calls.
	lc := net.ListenConfig{KeepAlive: -1}
	ln, err := lc.Listen(ctx, network, address)
	if err != nil {
		return nil, fmt.Errorf("lm: listen: %w", err)
	}
	if network == "unix" {
		// Only this user (the socket's owner) may connect; whoever else
		// should, is given access by the caller (chmod, or a shared folder).
		if err := os.Chmod(address, 0o600); err != nil {
			ln.Close()
			return nil, fmt.Errorf("lm: listen %s: %w", address, err)
		}
	}
	return ln, nil
}

// FormatAddr writes a listener's address in the form ParseAddr reads.
func FormatAddr(a net.Addr) string {
	if a.Network() == "unix" {
		return "unix:" + a.String()
	}
	return a.String()
}
