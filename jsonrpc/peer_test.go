package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/testlines"
	"github.com/tether-dev/tether/wire"
)

// pair connects two Conns over an in-memory pipe with the given framing.
func pair(t *testing.T, framing func(net.Conn) Channel, serverOpts, clientOpts *Options) (server, client *Conn) {
	t.Helper()
	a, b := net.Pipe()
	server = NewConn(framing(a), serverOpts)
	client = NewConn(framing(b), clientOpts)
	t.Cleanup(func() {
		client.Close()
		server.Close()
	})
	return server, client
}

func ndjson(c net.Conn) Channel         { return NDJSON(c, c, 0) }
func lengthPrefixed(c net.Conn) Channel { return LengthPrefixed(c, c, 0) }

var framings = map[string]func(net.Conn) Channel{"ndjson": ndjson, "length-prefixed": lengthPrefixed}

func TestCallNotifyBatchOverEveryFraming(t *testing.T) {
	for name, framing := range framings {
		t.Run(name, func(t *testing.T) {
			got := make(chan string, 1)
			mux := testMux()
			mux.AddFunc("note", func(_ context.Context, req *Request) (any, error) {
				got <- string(req.Params)
				return nil, nil
			})
			_, client := pair(t, framing, &Options{Handler: mux}, nil)
			ctx := context.Background()
			var sum int
			if err := client.Call(ctx, "add", map[string]int{"A": 2, "B": 40}, &sum); err != nil || sum != 42 {
				t.Fatalf("add = %d, %v; want 42", sum, err)
			}
			var raw json.RawMessage
			if err := client.Call(ctx, "echo", json.RawMessage("{\"k\":\n [1, \"\\n\"]}"), &raw); err != nil || string(raw) != `{"k":[1,"\n"]}` {
				t.Fatalf("echo = %s, %v", raw, err)
			}
			if err := client.Notify(ctx, "note", []string{"hi"}); err != nil {
				t.Fatal(err)
			}
			if s := <-got; s != `["hi"]` {
				t.Errorf("notification params %s", s)
			}
			err := client.Call(ctx, "missing", nil, nil)
			if !errors.Is(err, ErrMethodNotFound) {
				t.Errorf("unknown method: %v, want ErrMethodNotFound", err)
			}
			err = client.Call(ctx, "add", []int{1}, &sum)
			if !errors.Is(err, ErrInvalidParams) {
				t.Errorf("bad params: %v, want ErrInvalidParams", err)
			}
			if err := client.Call(ctx, "echo", 5, nil); !errors.Is(err, errParamsShape) {
				t.Errorf("scalar params: %v, want errParamsShape", err)
			}
			results, err := client.Batch(ctx, []BatchCall{
				{Method: "add", Params: map[string]int{"A": 1, "B": 2}},
				{Method: "note", Params: []int{9}, Notify: true},
				{Method: "missing"},
				{Method: "echo", Params: []string{"x"}},
			})
			if err != nil {
				t.Fatal(err)
			}
			if string(results[0].Result) != "3" || results[1].Result != nil || !errors.Is(results[2].Err, ErrMethodNotFound) || string(results[3].Result) != `["x"]` {
				t.Errorf("batch results %+v", results)
			}
			if s := <-got; s != `[9]` {
				t.Errorf("batch notification params %s", s)
			}
		})
	}
}

// TestCallbackFromHandlerCannotDeadlock has each side run one handler at a
// time: the server's handler calls the client, whose handler calls the
// server again. It only finishes if responses are routed on the readers.
func TestCallbackFromHandlerCannotDeadlock(t *testing.T) {
	serverMux := testMux()
	serverMux.AddFunc("outer", callingBack("starting", "client.ask", []int{1}, "outer+"))
	var progress []string
	var mu sync.Mutex
	clientMux := NewMux()
	clientMux.AddFunc("client.ask", func(ctx context.Context, _ *Request) (any, error) {
		var n int
		if err := ConnFrom(ctx).Call(ctx, "add", map[string]int{"A": 1, "B": 1}, &n); err != nil {
			return nil, err
		}
		return fmt.Sprint("client", n), nil
	})
	clientMux.AddFunc("$/progress", func(_ context.Context, req *Request) (any, error) {
		mu.Lock()
		progress = append(progress, string(req.Params))
		mu.Unlock()
		return nil, nil
	})
	_, client := pair(t, ndjson, &Options{Handler: serverMux, MaxConcurrent: 2}, &Options{Handler: clientMux, MaxConcurrent: 1})
	var got string
	if err := client.Call(context.Background(), "outer", nil, &got); err != nil || got != "outer+client2" {
		t.Fatalf("outer = %q, %v", got, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(progress) != 1 || progress[0] != `{"token":1,"value":"starting"}` {
		t.Errorf("progress %v, want one with the request id as token", progress)
	}
}

func TestProgressTokenAndTraceIDFromMeta(t *testing.T) {
	mux := NewMux()
	mux.AddFunc("work", func(ctx context.Context, _ *Request) (any, error) {
		if err := Progress(ctx, map[string]int{"done": 1}); err != nil {
			return nil, err
		}
		return TraceID(ctx), nil
	})
	_, p := serveRaw(t, &Options{Handler: mux}, 0)
	p.send(`{"jsonrpc":"2.0","method":"work","params":{"_meta":{"progressToken":"tok","traceId":"abc"}},"id":1}`)
	p.expectJSON(`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"tok","value":{"done":1}}}`)
	p.expectJSON(`{"jsonrpc":"2.0","id":1,"result":"abc"}`)
	p.send(`{"jsonrpc":"2.0","method":"work","params":{"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}},"id":2}`)
	p.expectJSON(`{"jsonrpc":"2.0","method":"$/progress","params":{"token":2,"value":{"done":1}}}`)
	p.expectJSON(`{"jsonrpc":"2.0","id":2,"result":"4bf92f3577b34da6a3ce929d0e0e4736"}`)
}

func TestCancelRequestCancelsTheHandler(t *testing.T) {
	_, p := serveRaw(t, &Options{Handler: testMux()}, 0)
	p.send(`{"jsonrpc":"2.0","method":"block","id":"c1"}`)
	p.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"c1"}}`)
	p.expectJSON(`{"jsonrpc":"2.0","id":"c1","error":{"code":-32800,"message":"request cancelled"}}`)
	// cancelling an id that is not in flight is ignored
	p.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"c1"}}`)
	p.expectNothing()
}

func TestCallerContextSendsCancelRequest(t *testing.T) {
	_, client := pair(t, ndjson, &Options{Handler: testMux()}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := client.Call(ctx, "block", nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want DeadlineExceeded", err)
	}
	// the server's handler was cancelled, so its worker is free again
	var n int
	if err := client.Call(context.Background(), "add", map[string]int{"A": 1}, &n); err != nil || n != 1 {
		t.Fatalf("after cancel: %d, %v", n, err)
	}
}

func TestOverloadIsAnsweredNotQueued(t *testing.T) {
	mux := testMux()
	hold := addGate(mux, "hold", "held")
	_, p := serveRaw(t, &Options{Handler: mux, MaxConcurrent: 1, MaxQueue: 1}, 0)
	t.Cleanup(hold.open)
	p.send(`{"jsonrpc":"2.0","method":"hold","id":1}`) // running
	<-hold.entered
	p.send(`{"jsonrpc":"2.0","method":"hold","id":2}`) // queued
	p.send(`{"jsonrpc":"2.0","method":"hold","id":3}`) // over both bounds
	p.expectJSON(`{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"server overloaded"}}`)
	hold.open()
	p.expectJSON(`{"jsonrpc":"2.0","id":1,"result":"held"}`)
	p.expectJSON(`{"jsonrpc":"2.0","id":2,"result":"held"}`)
}

func TestEndOfStreamAnswersWhatWasRead(t *testing.T) {
	mux := testMux()
	mux.AddFunc("slow", func(context.Context, *Request) (any, error) {
		time.Sleep(20 * time.Millisecond)
		return "late", nil
	})
	in := strings.NewReader(`{"jsonrpc":"2.0","method":"slow","id":1}` + "\n")
	var out testlines.Buffer
	c := NewConn(NDJSON(in, &out, 0), &Options{Handler: mux})
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	if !jsonEqual(t, []byte(strings.TrimSpace(out.String())), []byte(`{"jsonrpc":"2.0","id":1,"result":"late"}`)) {
		t.Errorf("output %q", out.String())
	}
	if err := c.Call(context.Background(), "x", nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("call after the end: %v, want ErrClosed", err)
	}
}

func TestCloseCancelsHandlersAndFailsCalls(t *testing.T) {
	entered := make(chan struct{})
	mux := NewMux()
	mux.AddFunc("wait", func(ctx context.Context, _ *Request) (any, error) {
		close(entered)
		<-ctx.Done()
		if !errors.Is(CancelCause(ctx), errCanceledByClose) {
			return nil, fmt.Errorf("cause %v", CancelCause(ctx))
		}
		return nil, ctx.Err()
	})
	server, client := pair(t, ndjson, &Options{Handler: mux}, nil)
	errc := make(chan error, 1)
	go func() { errc <- client.Call(context.Background(), "wait", nil, nil) }()
	<-entered
	server.Close()
	if err := <-errc; !errors.Is(err, ErrClosed) && !errors.Is(err, ErrCancelled) {
		t.Errorf("call during close: %v", err)
	}
	client.Close()
	if err := client.Call(context.Background(), "x", nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("call after close: %v, want ErrClosed", err)
	}
}

// A length-prefixed frame over the cap is answered with -32001 and its
// declared length skipped; the connection goes on (spec: one bad message
// never kills the connection). The id is echoed when the frame's head shows
// it, else it is null.
func TestOversizeLengthPrefixedFrameIsAnsweredAndSkipped(t *testing.T) {
	a, b := net.Pipe()
	c := NewConn(LengthPrefixed(a, a, 64), &Options{Handler: testMux()})
	defer c.Close()
	w := wire.NewFrameWriter(b, 0)
	r := wire.NewFrameReader(b, 0)
	frames := []string{
		strings.Repeat("z", 256), // no JSON at all: id null
		`{"jsonrpc":"2.0","id":"big","method":"echo","params":["` + strings.Repeat("x", 300) + `"]}`,
		`{"jsonrpc":"2.0","method":"echo","params":[2],"id":2}`,
	}
	written := make(chan error, 1)
	go func() {
		var err error
		for _, f := range frames {
			if err = w.WriteFrame([]byte(f)); err != nil {
				break
			}
		}
		written <- err
	}()
	want := []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"frame too large","data":{"reason":"wire: frame of 256 bytes exceeds the 64-byte maximum; skipped"}}}`,
		`{"jsonrpc":"2.0","id":"big","error":{"code":-32001,"message":"frame too large","data":{"reason":"wire: frame of ` + fmt.Sprint(len(frames[1])) + ` bytes exceeds the 64-byte maximum; skipped"}}}`,
		`{"jsonrpc":"2.0","id":2,"result":[2]}`,
	}
	for _, wantFrame := range want {
		got, err := r.ReadFrame()
		if err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(t, got, []byte(wantFrame)) {
			t.Errorf("got  %s\nwant %s", got, wantFrame)
		}
	}
	if err := <-written; err != nil {
		t.Fatal(err)
	}
	b.Close()
	if err := c.Wait(); err != nil {
		t.Errorf("Wait = %v, want nil: the connection ended cleanly", err)
	}
}

// A stream that ends inside the body being skipped still gets its -32001,
// and then the connection ends with the cut.
func TestOversizeLengthPrefixedFrameCutByEOF(t *testing.T) {
	in := strings.NewReader("\x00\x00\x01\x00only a few") // declares 256 bytes, sends 10
	var out testlines.Buffer
	c := NewConn(LengthPrefixed(in, &out, 16), &Options{Handler: testMux()})
	if err := c.Wait(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Wait = %v, want io.ErrUnexpectedEOF", err)
	}
	frame, err := wire.NewFrameReader(strings.NewReader(out.String()), 0).ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	var resp struct{ Error *Error }
	if err := json.Unmarshal(frame, &resp); err != nil || resp.Error == nil || resp.Error.Code != CodeFrameTooLarge {
		t.Fatalf("got %s, want -32001", frame)
	}
}
