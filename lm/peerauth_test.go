package lm_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/lm/backend"
	"github.com/tether-dev/tether/wire"
)

const peerClientEnv = "TETHER_LM_TEST_PEER_CLIENT"

// peerClient sends one request to addr and prints "answered" or "closed"
// (the server closed the connection without a response).
func peerClient(addr string) int {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		fmt.Println("dial:", err)
		return 1
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	req := `{"prompt": "hi", "model": "echo", "depth": 0}`
	c.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(req))), req...))
	_, err = wire.NewFrameReader(c, 0).ReadFrame()
	var ne net.Error
	switch {
	case err == nil:
		fmt.Println("answered")
	case errors.As(err, &ne) && ne.Timeout():
		fmt.Println("timeout: the connection stayed open")
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		fmt.Println("closed")
	default:
		fmt.Println("read:", err)
	}
	return 0
}

// addrListener reports another address than the one it listens on, to
// give Serve a listener on a non-loopback address.
type addrListener struct {
	net.Listener
	addr net.Addr
}

func (l addrListener) Addr() net.Addr { return l.addr }

func TestServeRefusesUncheckableTCP(t *testing.T) {
	wild := &net.TCPAddr{IP: net.IPv4zero, Port: 4000}
	err := lm.CheckPeers(wild)
	if err == nil || !strings.Contains(err.Error(), "unix:PATH") || !strings.Contains(err.Error(), "--insecure-no-auth") {
		t.Fatalf("CheckPeers(0.0.0.0): %v, want an error naming unix:PATH and --insecure-no-auth", err)
	}
	for _, a := range []net.Addr{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}, &net.TCPAddr{IP: net.IPv6loopback}, &net.UnixAddr{Name: "/x", Net: "unix"}} {
		if err := lm.CheckPeers(a); err != nil {
			t.Errorf("CheckPeers(%v): %v", a, err)
		}
	}

	ln, err := lm.Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := lm.NewServer(lm.SingleBackend("echo", &backend.Echo{}), nil)
	defer srv.Close()
	if err := srv.Serve(addrListener{ln, wild}); err == nil || errors.Is(err, lm.ErrServerClosed) {
		t.Fatalf("Serve on 0.0.0.0: %v, want refused at once", err)
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Error("the refused listener is still open")
	}

	// --insecure-no-auth serves it.
	ln, err = lm.Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	insecure := lm.NewServer(lm.SingleBackend("echo", &backend.Echo{}), &lm.Options{InsecureNoAuth: true})
	done := make(chan error, 1)
	go func() { done <- insecure.Serve(addrListener{ln, wild}) }()
	c := dialRaw(t, ln.Addr().String())
	c.send(`{"prompt": "hi"}`)
	if m := c.recv(); m["error"] != nil {
		t.Errorf("insecure server: %v", m)
	}
	insecure.Close()
	if err := <-done; !errors.Is(err, lm.ErrServerClosed) {
		t.Errorf("Serve: %v", err)
	}
}
