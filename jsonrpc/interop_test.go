package jsonrpc

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/creachadair/jrpc2/handler"
)

type addParams struct{ A, B int }

// TestInteropJrpc2ClientCallsTether: creachadair/jrpc2's client, over NDJSON,
// drives tether's server, including a server → client callback and a
// progress notification sent while the call is in flight.
func TestInteropJrpc2ClientCallsTether(t *testing.T) {
	mux := testMux()
	mux.AddFunc("ask_back", callingBack("half", "whoami", nil, "hello "))
	a, b := net.Pipe()
	server := NewConn(NDJSON(a, a, 0), &Options{Handler: mux})
	defer server.Close()
	var mu sync.Mutex
	var notes []string
	noted := make(chan struct{}, 1)
	client := jrpc2.NewClient(channel.Line(b, b), &jrpc2.ClientOptions{
		OnNotify: func(req *jrpc2.Request) {
			mu.Lock()
			notes = append(notes, req.Method()+" "+req.ParamString())
			mu.Unlock()
			select {
			case noted <- struct{}{}:
			default:
			}
		},
		OnCallback: func(context.Context, *jrpc2.Request) (any, error) { return "jrpc2", nil },
	})
	defer client.Close()
	ctx := context.Background()

	var sum int
	if err := client.CallResult(ctx, "add", addParams{2, 3}, &sum); err != nil || sum != 5 {
		t.Fatalf("add = %d, %v", sum, err)
	}
	_, err := client.Call(ctx, "missing", nil)
	var jerr *jrpc2.Error
	if !errors.As(err, &jerr) || jerr.Code != CodeMethodNotFound {
		t.Errorf("missing method: %v, want code -32601", err)
	}
	_, err = client.Call(ctx, "add", []string{"x"})
	if !errors.As(err, &jerr) || jerr.Code != CodeInvalidParams {
		t.Errorf("bad params: %v, want code -32602", err)
	}
	rsps, err := client.Batch(ctx, []jrpc2.Spec{
		{Method: "add", Params: addParams{1, 1}},
		{Method: "echo", Params: []int{7}},
		{Method: "echo", Params: []int{8}, Notify: true},
	})
	if err != nil || len(rsps) != 2 {
		t.Fatalf("batch: %v, %d responses", err, len(rsps))
	}
	if rsps[0].ResultString() != "2" || rsps[1].ResultString() != "[7]" {
		t.Errorf("batch results %s, %s", rsps[0].ResultString(), rsps[1].ResultString())
	}
	var greeting string
	if err := client.CallResult(ctx, "ask_back", nil, &greeting); err != nil || greeting != "hello jrpc2" {
		t.Fatalf("ask_back = %q, %v", greeting, err)
	}
	select { // the notification may come after the call's answer
	case <-noted:
	case <-time.After(10 * time.Second):
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 1 || !strings.HasPrefix(notes[0], `$/progress {"token":`) || !strings.HasSuffix(notes[0], `,"value":"half"}`) {
		t.Errorf("notifications seen by jrpc2: %q", notes)
	}
}

// TestInteropTetherCallsJrpc2Server: tether's client against a jrpc2 server.
func TestInteropTetherCallsJrpc2Server(t *testing.T) {
	a, b := net.Pipe()
	srv := jrpc2.NewServer(handler.Map{
		"add": handler.New(func(_ context.Context, p addParams) (int, error) { return p.A + p.B, nil }),
		"fail": handler.New(func(context.Context) error {
			return &jrpc2.Error{Code: -32042, Message: "custom"}
		}),
	}, nil).Start(channel.Line(a, a))
	client := NewConn(NDJSON(b, b, 0), nil)
	// Closing our end lets the jrpc2 server stop on end of stream; its
	// Stop racing a read panics in jrpc2 v1.3.6.
	defer func() {
		client.Close()
		srv.Wait()
	}()
	ctx := context.Background()
	var sum int
	if err := client.Call(ctx, "add", addParams{40, 2}, &sum); err != nil || sum != 42 {
		t.Fatalf("add = %d, %v", sum, err)
	}
	err := client.Call(ctx, "fail", nil, nil)
	if !errors.Is(err, &Error{Code: -32042}) {
		t.Errorf("fail: %v, want code -32042", err)
	}
	if err := client.Call(ctx, "nope", nil, nil); !errors.Is(err, ErrMethodNotFound) {
		t.Errorf("nope: %v, want ErrMethodNotFound", err)
	}
	results, err := client.Batch(ctx, []BatchCall{
		{Method: "add", Params: addParams{1, 2}},
		{Method: "add", Params: addParams{3, 4}},
	})
	if err != nil || string(results[0].Result) != "3" || string(results[1].Result) != "7" {
		t.Fatalf("batch: %+v, %v", results, err)
	}
	if err := client.Notify(ctx, "add", addParams{}); err != nil {
		t.Fatal(err)
	}
}
