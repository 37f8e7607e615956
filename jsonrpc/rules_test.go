package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
)

func TestNullIDIsARequest(t *testing.T) {
	_, p := serveRaw(t, &Options{Handler: testMux()}, 0)
	p.send(`{"jsonrpc":"2.0","method":"echo","params":[1],"id":null}`)
	p.expectJSON(`{"jsonrpc":"2.0","id":null,"result":[1]}`)
}

func TestIDsAreEchoedByteForByte(t *testing.T) {
	_, p := serveRaw(t, &Options{Handler: testMux()}, 0)
	for _, id := range []string{`1.5`, `9007199254740993`, `"1"`, `1`, `-0`, `1e400`, `"\u0031"`, `"é"`} {
		p.send(`{"jsonrpc":"2.0","method":"echo","params":[],"id":` + id + `}`)
		want := `{"jsonrpc":"2.0","id":` + id + `,"result":[]}`
		if got := string(p.Next()); got != want {
			t.Errorf("id %s: got %s, want %s", id, got, want)
		}
	}
}

func TestIDInFlightIsRejectedAndReleasedAfterAnswer(t *testing.T) {
	mux := testMux()
	wait := addGate(mux, "wait", "done")
	_, p := serveRaw(t, &Options{Handler: mux}, 0)
	t.Cleanup(wait.open)
	p.send(`{"jsonrpc":"2.0","method":"wait","id":7}`)
	<-wait.entered
	p.send(`{"jsonrpc":"2.0","method":"echo","params":[2],"id":7}`)
	got := p.Next()
	var resp struct {
		ID    int
		Error *Error
	}
	if err := json.Unmarshal(got, &resp); err != nil || resp.ID != 7 || resp.Error == nil || resp.Error.Code != CodeInvalidRequest {
		t.Fatalf("duplicate in-flight id: got %s, want -32600 for id 7", got)
	}
	wait.open()
	p.expectJSON(`{"jsonrpc":"2.0","id":7,"result":"done"}`)
	// answered: the id may be reused
	p.send(`{"jsonrpc":"2.0","method":"echo","params":[3],"id":7}`)
	p.expectJSON(`{"jsonrpc":"2.0","id":7,"result":[3]}`)
	// an id that got an error is released too
	p.send(`{"jsonrpc":"2.0","method":"nope","id":8}`)
	p.expectJSON(`{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"Method not found"}}`)
	p.send(`{"jsonrpc":"2.0","method":"echo","params":[4],"id":8}`)
	p.expectJSON(`{"jsonrpc":"2.0","id":8,"result":[4]}`)
}

func TestInvalidEnvelopes(t *testing.T) {
	invalid := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"Invalid Request"}}`
	}
	cases := []struct{ name, send, want string }{
		{"member names are case-sensitive", `{"jsonrpc":"2.0","Method":"echo","params":[],"id":1}`, invalid("1")},
		{"unknown member beside a valid method", `{"jsonrpc":"2.0","method":"echo","Params":[],"id":2}`, invalid("2")},
		{"version 2 is not 2.0", `{"jsonrpc":"2","method":"echo","id":3}`, invalid("3")},
		{"version number", `{"jsonrpc":2.0,"method":"echo","id":4}`, invalid("4")},
		{"version with space", `{"jsonrpc":"2.0 ","method":"echo","id":5}`, invalid("5")},
		{"version missing", `{"method":"echo","id":6}`, invalid("6")},
		{"method not a string", `{"jsonrpc":"2.0","method":1,"id":7}`, invalid("7")},
		{"params a string", `{"jsonrpc":"2.0","method":"echo","params":"bar","id":8}`, invalid("8")},
		{"params null", `{"jsonrpc":"2.0","method":"echo","params":null,"id":9}`, invalid("9")},
		{"id an object", `{"jsonrpc":"2.0","method":"echo","id":{"a":1}}`, invalid("null")},
		{"id true", `{"jsonrpc":"2.0","method":"echo","id":true}`, invalid("null")},
		{"duplicate member", `{"jsonrpc":"2.0","method":"echo","method":"echo","id":10}`, invalid("10")},
		{"only version", `{"jsonrpc":"2.0"}`, invalid("null")},
		{"a number", `5`, invalid("null")},
		{"null", `null`, invalid("null")},
		{"a string", `"x"`, invalid("null")},
		{"empty batch", `[]`, invalid("null")},
		{"empty batch with spaces", ` [ ] `, invalid("null")},
		{"broken JSON", `{"jsonrpc":"2.0","method":"echo",`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"trailing garbage", `{"jsonrpc":"2.0","method":"echo","id":1} x`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"two values", `{} {}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"bad escape", `{"jsonrpc":"2.0","method":"e\x","id":1}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"batch of numbers", `[1,2]`, `[` + invalid("null") + `,` + invalid("null") + `]`},
	}
	_, p := serveRaw(t, &Options{Handler: testMux()}, 0)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p.t = t
			p.send(c.send)
			p.expectJSON(c.want)
			p.expectNothing() // the connection lives on
		})
	}
}

func TestEscapedMemberNamesAndVersionAreUnderstood(t *testing.T) {
	_, p := serveRaw(t, &Options{Handler: testMux()}, 0)
	p.send(`{"json\u0072pc":"2\u002e0","m\u0065thod":"\u0065cho","params":[1],"id":1}`)
	p.expectJSON(`{"jsonrpc":"2.0","id":1,"result":[1]}`)
}

func TestNotificationsAreNeverAnswered(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	mux := testMux()
	mux.AddFunc("note", func(_ context.Context, req *Request) (any, error) {
		mu.Lock()
		seen = append(seen, string(req.Params))
		mu.Unlock()
		return nil, errors.New("notification handlers' errors are only logged")
	})
	_, p := serveRaw(t, &Options{Handler: mux, MaxConcurrent: 1}, 0)
	p.send(`{"jsonrpc":"2.0","method":"note","params":[1]}`)
	p.send(`{"jsonrpc":"2.0","method":"missing"}`)
	p.send(`{"jsonrpc":"2.0","method":"fail"}`)
	p.send(`[{"jsonrpc":"2.0","method":"note","params":[2]},{"jsonrpc":"2.0","method":"missing"}]`)
	p.expectNothing()
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(seen, " ") != "[1] [2]" {
		t.Errorf("notification handler saw %v, want [1] and [2]", seen)
	}
}

func TestHandlerErrors(t *testing.T) {
	_, p := serveRaw(t, &Options{Handler: testMux()}, 0)
	p.send(`{"jsonrpc":"2.0","method":"add","params":{"A":"x"},"id":1}`)
	var resp struct{ Error *Error }
	if err := json.Unmarshal(p.Next(), &resp); err != nil || resp.Error == nil || resp.Error.Code != CodeInvalidParams || !strings.Contains(string(resp.Error.Data), "reason") {
		t.Fatalf("typed params that do not decode: got %+v, want -32602 with a reason", resp.Error)
	}
	p.send(`{"jsonrpc":"2.0","method":"fail","id":2}`)
	if err := json.Unmarshal(p.Next(), &resp); err != nil || resp.Error == nil || resp.Error.Code != CodeInternalError {
		t.Fatalf("failing handler: got %+v, want -32603", resp.Error)
	}
	var data struct{ Exception, Message string }
	if err := json.Unmarshal(resp.Error.Data, &data); err != nil || data.Exception != "*net.AddrError" || !strings.Contains(data.Message, "fail: ") {
		t.Errorf("data = %s, want exception *net.AddrError and the method in the message", resp.Error.Data)
	}
	p.send(`{"jsonrpc":"2.0","method":"add","params":{"A":2,"B":3},"id":3}`)
	p.expectJSON(`{"jsonrpc":"2.0","id":3,"result":5}`)
}

func TestLineOverCapIsAnsweredAndSkipped(t *testing.T) {
	_, p := serveRaw(t, &Options{Handler: testMux()}, 64)
	p.send(`{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("x", 1000) + `"],"id":1}`)
	got := p.Next()
	var resp struct {
		ID    *int
		Error *Error
	}
	if err := json.Unmarshal(got, &resp); err != nil || resp.ID != nil || resp.Error == nil || resp.Error.Code != CodeFrameTooLarge {
		t.Fatalf("got %s, want -32001 with id null", got)
	}
	p.send(`{"jsonrpc":"2.0","method":"echo","params":[2],"id":2}`)
	p.expectJSON(`{"jsonrpc":"2.0","id":2,"result":[2]}`)
}

func TestBatchAllNotificationsGetsNothing(t *testing.T) {
	_, p := serveRaw(t, &Options{Handler: testMux()}, 0)
	p.send(`[{"jsonrpc":"2.0","method":"echo","params":[1]},{"jsonrpc":"2.0","method":"echo"}]`)
	p.expectNothing()
}

func TestBatchMixesAnswersInOneArray(t *testing.T) {
	_, p := serveRaw(t, &Options{Handler: testMux()}, 0)
	p.send(`[{"jsonrpc":"2.0","method":"echo","params":[1],"id":1},{"jsonrpc":"2.0","method":"echo","params":[2]},5,{"jsonrpc":"2.0","method":"add","params":{"A":1,"B":1},"id":"b"}]`)
	var got []map[string]any
	if err := json.Unmarshal(p.Next(), &got); err != nil {
		t.Fatal(err)
	}
	ids := map[any]bool{}
	for _, r := range got {
		ids[r["id"]] = true
	}
	if len(got) != 3 || !ids[float64(1)] || !ids["b"] || !ids[nil] {
		t.Errorf("batch answers %v, want ids 1, \"b\" and null", got)
	}
}
