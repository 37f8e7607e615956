package lm

import (
	"net"
	"net/netip"
	"os"
	"testing"
)

// The kernel's exact lookup finds the owner of a live loopback connection's
// client socket, and nothing for an address no socket has.
func TestDiagSocketUID(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	peer := server.RemoteAddr().(*net.TCPAddr).AddrPort()
	local := server.LocalAddr().(*net.TCPAddr).AddrPort()
	uid, found, err := diagSocketUID(peer, local)
	if err != nil {
		t.Fatalf("sock_diag lookup: %v", err)
	}
	if !found || uid != uint32(os.Getuid()) {
		t.Fatalf("uid %d found %v, want %d", uid, found, os.Getuid())
	}
	gone := netip.AddrPortFrom(peer.Addr(), peer.Port()+1)
	if _, found, err := diagSocketUID(gone, local); err != nil || found {
		t.Fatalf("an address no socket has: found %v, err %v", found, err)
	}
}
