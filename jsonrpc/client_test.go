package jsonrpc

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A rawPeer plays the server here: the Conn under test is the client.

func TestClientSurvivesBadResponses(t *testing.T) {
	client, p := serveRaw(t, nil, 0)
	errc := make(chan error, 1)
	go func() { errc <- client.Call(context.Background(), "x", []int{1}, nil) }()
	req := p.Next()
	if !jsonEqual(t, req, []byte(`{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}`)) {
		t.Fatalf("request %s", req)
	}
	// a response to nobody, an error with id null and garbage are dropped, never answered
	p.send(`{"jsonrpc":"2.0","id":99,"result":1}`)
	p.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	p.send(`{"jsonrpc":"2.0","result":1}`)
	// an invalid response for the pending id fails that call instead of hanging it
	p.send(`{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"both"}}`)
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "invalid response") {
			t.Errorf("call got %v, want an invalid-response error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("call hangs after an invalid response")
	}
	// none of the above was answered: the next line is the next request
	go func() { errc <- client.Call(context.Background(), "y", nil, nil) }()
	if got := p.Next(); !jsonEqual(t, got, []byte(`{"jsonrpc":"2.0","id":2,"method":"y"}`)) {
		t.Fatalf("got %s, want the next request and no answers to responses", got)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"error":{"code":-32042,"message":"custom","data":{"k":1}}}`)
	err := <-errc
	var rpcErr *Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32042 || string(rpcErr.Data) != `{"k":1}` {
		t.Errorf("error answer: %v", err)
	}
	go func() { errc <- client.Call(context.Background(), "z", nil, nil) }()
	p.Next()
	p.send(`{"jsonrpc":"2.0","id":3,"error":"not an object"}`)
	if err := <-errc; err == nil || errors.As(err, &rpcErr) {
		t.Errorf("malformed error object: %v, want a plain error", err)
	}
}

func TestBatchCancelledByContext(t *testing.T) {
	client, p := serveRaw(t, nil, 0)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := client.Batch(ctx, []BatchCall{{Method: "a"}, {Method: "b"}})
		errc <- err
	}()
	p.Next() // the batch
	p.send(`[{"jsonrpc":"2.0","id":1,"result":"a"}]`)
	// The client reads in order: once it has answered this probe, the
	// answer for id 1 has been routed, so only id 2 is left to cancel.
	p.send(`{"jsonrpc":"2.0","id":"probe","method":"no.such.method"}`)
	if got := p.Next(); !jsonEqual(t, got, []byte(`{"jsonrpc":"2.0","id":"probe","error":{"code":-32601,"message":"Method not found"}}`)) {
		t.Fatalf("probe answered %s", got)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("batch: %v, want Canceled", err)
	}
	if got := p.Next(); !jsonEqual(t, got, []byte(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}`)) {
		t.Errorf("got %s, want $/cancelRequest for the unanswered id 2", got)
	}
	if _, err := client.Batch(context.Background(), nil); err == nil {
		t.Error("empty batch accepted")
	}
}

func TestHandlerSeesItsRequest(t *testing.T) {
	mux := NewMux()
	mux.AddFunc("who", func(ctx context.Context, req *Request) (any, error) {
		if RequestFrom(ctx) != req || ConnFrom(ctx) == nil || req.IsNotification() {
			return nil, errors.New("context does not carry the request")
		}
		return string(req.ID), nil
	})
	Register(mux, "typed", func(_ context.Context, p struct{ N int }) (int, error) {
		if p.N < 0 {
			return 0, InvalidParams("N = %d must not be negative", p.N)
		}
		return p.N, nil
	})
	_, p := serveRaw(t, &Options{Handler: mux}, 0)
	p.send(`{"jsonrpc":"2.0","method":"who","id":"abc"}`)
	p.expectJSON(`{"jsonrpc":"2.0","id":"abc","result":"\"abc\""}`)
	p.send(`{"jsonrpc":"2.0","method":"typed","params":{"N":-1},"id":1}`)
	p.expectJSON(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":{"reason":"N = -1 must not be negative"}}}`)
	p.send(`{"jsonrpc":"2.0","method":"typed","params":{"N":2},"id":2}`)
	p.expectJSON(`{"jsonrpc":"2.0","id":2,"result":2}`)
	if RequestFrom(context.Background()) != nil || ConnFrom(context.Background()) != nil || TraceID(context.Background()) != "" {
		t.Error("a plain context claims to be a request's")
	}
	if err := Progress(context.Background(), 1); err == nil {
		t.Error("Progress outside a handler succeeded")
	}
}
