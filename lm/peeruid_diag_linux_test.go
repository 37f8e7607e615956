package lm

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/netip"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/tether-dev/tether/wire"
	"golang.org/x/sys/unix"
)

// loopbackPair is an accepted loopback connection: the server side's
// local address and its peer's.
func loopbackPair(t *testing.T, ln net.Listener) (local, peer netip.AddrPort) {
	t.Helper()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	return server.LocalAddr().(*net.TCPAddr).AddrPort(), server.RemoteAddr().(*net.TCPAddr).AddrPort()
}

func listenLoopback(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// isDiagSocket reports whether fd is an open NETLINK_SOCK_DIAG socket.
func isDiagSocket(fd int) bool {
	dom, err1 := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN)
	proto, err2 := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_PROTOCOL)
	return err1 == nil && err2 == nil && dom == unix.AF_NETLINK && proto == unix.NETLINK_SOCK_DIAG
}

// The kernel's exact lookup finds the owner of a live loopback connection's
// client socket, and nothing for an address no socket has.
func TestSockDiagLookup(t *testing.T) {
	d := newSockDiag()
	defer d.close()
	local, peer := loopbackPair(t, listenLoopback(t))
	uid, found, err := d.lookup(peer, local)
	if err != nil {
		t.Fatalf("sock_diag lookup: %v", err)
	}
	if !found || uid != uint32(os.Getuid()) {
		t.Fatalf("uid %d found %v, want %d", uid, found, os.Getuid())
	}
	gone := netip.AddrPortFrom(peer.Addr(), peer.Port()+1)
	if _, found, err := d.lookup(gone, local); err != nil || found {
		t.Fatalf("an address no socket has: found %v, err %v", found, err)
	}
}

// Every lookup goes over the one socket, and allocates nothing.
func TestSockDiagOneSocketNoAllocs(t *testing.T) {
	d := newSockDiag()
	defer d.close()
	local, peer := loopbackPair(t, listenLoopback(t))
	if _, found, err := d.lookup(peer, local); err != nil || !found {
		t.Fatalf("first lookup: found %v, err %v", found, err)
	}
	fd := d.fd
	allocs := testing.AllocsPerRun(200, func() {
		if _, found, err := d.lookup(peer, local); err != nil || !found {
			t.Fatalf("lookup: found %v, err %v", found, err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per lookup, want 0", allocs)
	}
	if d.fd != fd {
		t.Errorf("socket changed from fd %d to %d between lookups", fd, d.fd)
	}
}

// Lookups from many goroutines at once each get their own connection's answer.
func TestSockDiagConcurrent(t *testing.T) {
	d := newSockDiag()
	defer d.close()
	ln := listenLoopback(t)
	type pair struct{ local, peer netip.AddrPort }
	pairs := make([]pair, 16)
	for i := range pairs {
		pairs[i].local, pairs[i].peer = loopbackPair(t, ln)
	}
	var wg sync.WaitGroup
	errs := make(chan string, len(pairs))
	for _, p := range pairs {
		wg.Go(func() {
			for range 50 {
				uid, found, err := d.lookup(p.peer, p.local)
				if err != nil || !found || uid != uint32(os.Getuid()) {
					errs <- p.peer.String()
					return
				}
				// The server's side is found too, under its own address.
				if _, found, err := d.lookup(p.local, p.peer); err != nil || !found {
					errs <- p.local.String()
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("lookup of %s failed under concurrent use", e)
	}
}

// A socket that stops answering (here: not a netlink socket at all) is
// closed and a new one opened, within the same lookup.
func TestSockDiagReopensFailedSocket(t *testing.T) {
	d := newSockDiag()
	defer d.close()
	local, peer := loopbackPair(t, listenLoopback(t))
	bad, err := unix.Open(os.DevNull, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	d.fd = bad // writes vanish, reads return nothing
	uid, found, err := d.lookup(peer, local)
	if err != nil || !found || uid != uint32(os.Getuid()) {
		t.Fatalf("lookup on a broken socket: uid %d found %v err %v", uid, found, err)
	}
	if !isDiagSocket(d.fd) {
		t.Fatalf("fd %d after the lookup is not a sock_diag socket", d.fd)
	}
	if d.fd != bad {
		// The broken descriptor was closed (else its number would not be free).
		if _, err := unix.FcntlInt(uintptr(bad), unix.F_GETFD, 0); err != unix.EBADF {
			t.Errorf("the broken fd %d is still open (%v)", bad, err)
		}
	}
}

// Closing the server closes its socket; lookups after it fail.
func TestServerCloseClosesDiagSocket(t *testing.T) {
	ln, err := Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(SingleBackend("echo", echoBackend{}), nil)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := roundTrip(c); err != nil {
		t.Fatalf("a request from the server's own uid: %v", err)
	}
	srv.peers.mu.Lock()
	fd := srv.peers.fd
	srv.peers.mu.Unlock()
	if !isDiagSocket(fd) {
		t.Fatalf("fd %d while serving is not a sock_diag socket", fd)
	}
	srv.Close()
	<-done
	if srv.peers.fd != -1 || isDiagSocket(fd) {
		t.Errorf("after Close: fd %d, socket %d still open: %v", srv.peers.fd, fd, isDiagSocket(fd))
	}
	if _, _, err := srv.peers.lookup(netip.MustParseAddrPort("127.0.0.1:1"), netip.MustParseAddrPort("127.0.0.1:2")); err == nil {
		t.Error("a lookup after Close succeeded")
	}
}

// echoBackend answers every call with "ok".
type echoBackend struct{}

func (echoBackend) Complete(context.Context, Call) (Reply, error) { return Reply{Text: "ok"}, nil }

// roundTrip sends one request on c and reads a response without an error.
func roundTrip(c net.Conn) error {
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if err := wire.NewFrameWriter(c, 0).WriteFrame([]byte(`{"prompt": "hi"}`)); err != nil {
		return err
	}
	payload, err := wire.NewFrameReader(c, 0).ReadFrame()
	if err != nil {
		return err
	}
	var resp struct{ Error *string }
	if err := json.Unmarshal(payload, &resp); err != nil {
		return err
	}
	if resp.Error != nil {
		return errors.New(*resp.Error)
	}
	return nil
}

// A kernel without inet_diag answers every lookup "no such socket"
// (ENOENT, as for a family it has no handler for); the peer's uid is then
// found in the socket tables, not refused as an owner that has gone.
func TestPeerUIDFallsBackWhenTheKernelCannotLookUp(t *testing.T) {
	d := newSockDiag()
	defer d.close()
	d.family = func(netip.Addr) uint8 { return unix.AF_DECnet } // no kernel has a diag handler for it
	local, peer := loopbackPair(t, listenLoopback(t))
	if _, found, err := d.lookup(peer, local); err != nil || found {
		t.Fatalf("the stand-in for a kernel without inet_diag: found %v, err %v; want not found", found, err)
	}
	uid, err := peerUID(d, local, peer)
	if err != nil || uid != uint32(os.Getuid()) {
		t.Fatalf("peerUID: %d, %v; want %d from the socket tables", uid, err, os.Getuid())
	}
	gone := netip.AddrPortFrom(peer.Addr(), peer.Port()+1)
	if _, err := peerUID(d, local, gone); !errors.Is(err, errNoOwner) {
		t.Fatalf("a peer no socket has: %v, want errNoOwner", err)
	}
}
