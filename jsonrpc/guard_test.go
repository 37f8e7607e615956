package jsonrpc

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// serveGuarded runs Serve with opts on a loopback port until the test ends.
func serveGuarded(t *testing.T, framing Framing, opts *Options) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, l, framing, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve = %v", err)
		}
	})
	return l.Addr().String()
}

// closedWithin reads nc until the server closes it; false if it stays open
// past d.
func closedWithin(t *testing.T, nc net.Conn, d time.Duration) bool {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, nc)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// An idle connection is closed after IdleTimeout; a message begun and not
// finished within ReadTimeout is cut off (issue 17, item 5: slow clients
// held their connections and buffers for ever).
func TestServeClosesIdleAndStalledConnections(t *testing.T) {
	addr := serveGuarded(t, LengthFraming(0), &Options{Handler: testMux(),
		IdleTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond})
	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	if !closedWithin(t, idle, 10*time.Second) {
		t.Error("an idle connection stayed open")
	}
	stalled, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	stalled.Write(binary.BigEndian.AppendUint32(nil, 1<<20)) // a 1 MiB frame, never sent
	if !closedWithin(t, stalled, 10*time.Second) {
		t.Error("a connection stalled inside a frame stayed open")
	}
}

// A connection whose request is still running is not idle, however long
// the request takes.
func TestServeKeepsBusyConnections(t *testing.T) {
	release := make(chan struct{})
	mux := testMux()
	mux.AddFunc("wait", func(ctx context.Context, _ *Request) (any, error) {
		select {
		case <-release:
			return "done", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	addr := serveGuarded(t, LineFraming(0), &Options{Handler: mux, IdleTimeout: 50 * time.Millisecond})
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	client := NewConn(NDJSON(nc, nc, 0), nil)
	defer client.Close()
	// Release the handler only after several idle timeouts have passed.
	timer := time.AfterFunc(500*time.Millisecond, func() { close(release) })
	defer timer.Stop()
	var got string
	if err := client.Call(context.Background(), "wait", nil, &got); err != nil || got != "done" {
		t.Fatalf("a request running past the idle timeout: %q, %v", got, err)
	}
}
