package lm_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/lm/backend"
	"github.com/tether-dev/tether/wire"
)

// startServer serves router on a loopback port until the test ends.
func startServer(t *testing.T, router *lm.Router, opts *lm.Options) (*lm.Server, string) {
	t.Helper()
	ln, err := lm.Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := lm.NewServer(router, opts)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-done; !errors.Is(err, lm.ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
	})
	return srv, lm.FormatAddr(ln.Addr())
}

func echoServer(t *testing.T, echo *backend.Echo, opts *lm.Options) (*lm.Server, string) {
	t.Helper()
	if echo == nil {
		echo = &backend.Echo{}
	}
	return startServer(t, lm.SingleBackend("echo", echo), opts)
}

// oneShotServer answers one request per connection and closes, as rlm's
// LMHandler does.
func oneShotServer(t *testing.T) (addr string, accepted *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = new(atomic.Int64)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			if _, err := wire.NewFrameReader(c, 0).ReadFrame(); err == nil {
				wire.NewFrameWriter(c, 0).WriteFrame([]byte(`{"chat_completion":{"root_model":"m","prompt":"x","response":"pong","usage_summary":{"model_usage_summaries":{}},"execution_time":0.1},"chat_completions":null,"error":null}`))
			}
			c.Close()
		}
	})
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return ln.Addr().String(), accepted
}

// rawConn is a test peer that writes frames (or raw bytes) by hand.
type rawConn struct {
	t *testing.T
	net.Conn
	fr *wire.FrameReader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawConn{t: t, Conn: c, fr: wire.NewFrameReader(c, 0)}
}

func (c *rawConn) send(payload string) {
	c.t.Helper()
	buf := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	if _, err := c.Write(append(buf, payload...)); err != nil {
		c.t.Fatal(err)
	}
}

// recv reads one response as a generic map, so tests see the exact keys.
func (c *rawConn) recv() map[string]any {
	c.t.Helper()
	p, err := c.fr.ReadFrame()
	if err != nil {
		c.t.Fatalf("reading response: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(p, &m); err != nil {
		c.t.Fatalf("response %q: %v", p, err)
	}
	return m
}

// expectClosed asserts the server closes the connection (no more frames).
func (c *rawConn) expectClosed() {
	c.t.Helper()
	p, err := c.fr.ReadFrame()
	if err == nil {
		c.t.Fatalf("got frame %q, want the connection closed", p)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		c.t.Fatalf("connection still open: %v", err)
	}
}

// gauge is a backend that records its peak concurrency.
type gauge struct {
	delay     time.Duration
	cur, peak atomic.Int64
	mu        sync.Mutex
}

func (g *gauge) Complete(ctx context.Context, call lm.Call) (lm.Reply, error) {
	n := g.cur.Add(1)
	defer g.cur.Add(-1)
	g.mu.Lock()
	if n > g.peak.Load() {
		g.peak.Store(n)
	}
	g.mu.Unlock()
	select {
	case <-time.After(g.delay):
	case <-ctx.Done():
		return lm.Reply{}, ctx.Err()
	}
	return lm.Reply{Text: "ok", InputTokens: 1, OutputTokens: 1}, nil
}
