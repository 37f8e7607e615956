package lm

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
)

// rlm's wire has no field for a credential, so who may connect is decided
// by the listener: a Unix socket is made 0600 (Listen), and on a loopback
// TCP port a connection is served only if the socket at its other end
// belongs to the server's own uid or to root.

// CheckPeers says whether Serve can tell who connects on a listener bound
// to a: nil for a Unix socket, and for a loopback TCP address where a
// peer's uid can be found (Linux's /proc/net/tcp). Otherwise the error
// names the reason and the fix; Options.InsecureNoAuth serves it anyway.
func CheckPeers(a net.Addr) error {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return nil
	}
	const fix = "listen on a Unix socket (--listen unix:PATH, created 0600), or give --insecure-no-auth " +
		"to let anyone who can reach the port spend the LM budget"
	if !ta.IP.IsLoopback() {
		return fmt.Errorf("lm: listen %s: not a loopback address, so anyone who can reach it could spend the LM budget: "+
			"listen on 127.0.0.1 or %s", a, fix)
	}
	if err := peerLookupErr(); err != nil {
		return fmt.Errorf("lm: listen %s: %v: %s", a, err, fix)
	}
	return nil
}

// guarded says whether connections accepted on ln must pass admit, or
// why ln cannot be served at all.
func (s *Server) guarded(ln net.Listener) (bool, error) {
	if s.opts.InsecureNoAuth {
		return false, nil
	}
	if err := CheckPeers(ln.Addr()); err != nil {
		return false, err
	}
	_, tcp := ln.Addr().(*net.TCPAddr)
	return tcp, nil
}

// admit reports whether c's peer is the server's own uid or root; a peer
// refused is counted and logged.
func (s *Server) admit(c net.Conn) bool {
	err := s.checkPeer(c)
	if err == nil {
		return true
	}
	s.refused.Add(1)
	slog.Warn("lm: connection refused", "remote", c.RemoteAddr().String(), "reason", err.Error())
	return false
}

func (s *Server) checkPeer(c net.Conn) error {
	local, ok1 := c.LocalAddr().(*net.TCPAddr)
	remote, ok2 := c.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return errors.New("not a TCP connection")
	}
	uid, err := peerUID(s.peers, local.AddrPort(), remote.AddrPort())
	if err != nil {
		return err
	}
	if uid != s.uid && uid != 0 {
		return fmt.Errorf("peer uid %d is neither the server's uid %d nor root", uid, s.uid)
	}
	return nil
}

// Refused is the number of connections closed unserved because their peer
// was another user or could not be identified.
func (s *Server) Refused() int64 { return s.refused.Load() }
