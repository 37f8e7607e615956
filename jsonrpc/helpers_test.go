package jsonrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"reflect"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/tether-dev/tether/internal/testlines"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// rawPeer is the test's end of a connection: it writes raw lines and reads
// what the Conn under test sends, one line at a time (Next).
type rawPeer struct {
	t    *testing.T
	conn net.Conn
	*testlines.Reader
}

// serveRaw starts a Conn with opts on one end of a pipe and returns the
// other end as a rawPeer. Cleanup closes both and waits for every goroutine.
func serveRaw(t *testing.T, opts *Options, maxLine int) (*Conn, *rawPeer) {
	t.Helper()
	a, b := net.Pipe()
	c := NewConn(NDJSON(a, a, maxLine), opts)
	p := &rawPeer{t: t, conn: b, Reader: testlines.Read(t, b)}
	t.Cleanup(func() {
		c.Close()
		b.Close()
	})
	return c, p
}

func (p *rawPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.conn, line+"\n"); err != nil {
		p.t.Fatalf("send %s: %v", line, err)
	}
}

// expectJSON reads the next line and compares it with want as parsed JSON.
func (p *rawPeer) expectJSON(want string) {
	p.t.Helper()
	got := p.Next()
	if !jsonEqual(p.t, got, []byte(want)) {
		p.t.Errorf("got  %s\nwant %s", got, want)
	}
}

// expectNothing proves no line is pending by sending a probe request and
// getting its answer first.
func (p *rawPeer) expectNothing() {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","method":"echo","params":["probe"],"id":"probe"}`)
	p.expectJSON(`{"jsonrpc":"2.0","id":"probe","result":["probe"]}`)
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%s is not JSON: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%s is not JSON: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

// testMux has echo (returns params), fail (an internal error), typed add,
// block (waits for cancellation) and a few more used across tests.
func testMux() *Mux {
	mux := NewMux()
	mux.AddFunc("echo", func(_ context.Context, req *Request) (any, error) {
		return append(json.RawMessage(nil), req.Params...), nil
	})
	mux.AddFunc("fail", func(context.Context, *Request) (any, error) {
		return nil, fmt.Errorf("looking up: %w", &net.AddrError{Err: "boom", Addr: "x"})
	})
	Register(mux, "add", func(_ context.Context, p struct{ A, B int }) (int, error) {
		return p.A + p.B, nil
	})
	mux.AddFunc("block", func(ctx context.Context, _ *Request) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	return mux
}

// gate is a method that reports each request it starts on entered (by id)
// and holds it, not watching its context, until open is called.
type gate struct {
	entered chan string
	release chan struct{}
	once    sync.Once
}

// addGate adds method to mux as a gate whose requests answer result.
func addGate(mux *Mux, method string, result any) *gate {
	g := &gate{entered: make(chan string, 8), release: make(chan struct{})}
	mux.AddFunc(method, func(_ context.Context, req *Request) (any, error) {
		g.entered <- string(req.ID)
		<-g.release
		return result, nil
	})
	return g
}

// open lets every request through, now and later. It may be called more
// than once: a test's cleanup calls it before the Conn's, so that a failed
// test does not leave Close waiting for a held handler.
func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

// callingBack is a handler that sends progress, calls method on its peer
// and answers prefix followed by the peer's string answer.
func callingBack(progress, method string, params any, prefix string) func(context.Context, *Request) (any, error) {
	return func(ctx context.Context, _ *Request) (any, error) {
		if err := Progress(ctx, progress); err != nil {
			return nil, err
		}
		var s string
		if err := ConnFrom(ctx).Call(ctx, method, params, &s); err != nil {
			return nil, err
		}
		return prefix + s, nil
	}
}
