package lm_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/lm/backend"
)

func TestClientKeepAliveReusesConnection(t *testing.T) {
	conns := make(chan lm.UsageSummary, 4)
	_, addr := echoServer(t, nil, &lm.Options{ConnDone: func(_ string, u lm.UsageSummary) { conns <- u }})
	cl, _ := lm.NewClient(addr, &lm.ClientOptions{KeepAlive: true})
	for _, p := range []string{"a", "b", "c"} {
		c, err := cl.Query(context.Background(), p, "")
		if err != nil || c.Response != p {
			t.Fatalf("Query(%q) = %+v, %v", p, c, err)
		}
	}
	cl.Close()
	// The one connection, closed: it carried all three calls.
	select {
	case u := <-conns:
		if n := u.Calls(); n != 3 {
			t.Errorf("the first connection closed carried %d calls, want all 3", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the client's connection was not closed")
	}
}

func TestClientRedialsAfterOneShotServerCloses(t *testing.T) {
	addr, accepted := oneShotServer(t)
	cl, _ := lm.NewClient(addr, &lm.ClientOptions{KeepAlive: true})
	defer cl.Close()
	for i := range 3 {
		c, err := cl.Query(context.Background(), "ping", "")
		if err != nil || c.Response != "pong" {
			t.Fatalf("query %d: %+v, %v", i, c, err)
		}
	}
	if n := accepted.Load(); n != 3 {
		t.Errorf("%d connections, want 3", n)
	}
}

func TestClientContextCancel(t *testing.T) {
	_, addr := echoServer(t, &backend.Echo{Delay: time.Hour}, nil)
	cl, _ := lm.NewClient(addr, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := cl.Query(ctx, "slow", ""); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Query = %v, want DeadlineExceeded", err)
	}
}

func TestClientErrors(t *testing.T) {
	if _, err := lm.NewClient("no-port", nil); err == nil {
		t.Error("NewClient accepted an address without a port")
	}
	if _, err := lm.NewClient("unix:", nil); err == nil {
		t.Error("NewClient accepted an empty socket path")
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	cl, _ := lm.NewClient(addr, nil)
	var op *net.OpError
	if _, err := cl.Query(context.Background(), "x", ""); !errors.As(err, &op) {
		t.Errorf("Query to a closed port = %v, want a *net.OpError", err)
	}
}
