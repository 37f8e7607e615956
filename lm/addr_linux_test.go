package lm_test

import (
	"context"
	"net"
	"syscall"
	"testing"

	"github.com/tether-dev/tether/lm"
)

// Connections accepted on a Listen listener send no keep-alive probes:
// the server's timeouts close silent peers, and the setsockopt calls
// would be paid on every connection.
func TestListenNoKeepAlive(t *testing.T) {
	ln, err := lm.Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var on int
	var opErr error
	if err := raw.Control(func(fd uintptr) {
		on, opErr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_KEEPALIVE)
	}); err != nil || opErr != nil {
		t.Fatal(err, opErr)
	}
	if on != 0 {
		t.Errorf("SO_KEEPALIVE is %d on an accepted connection, want 0", on)
	}
}
