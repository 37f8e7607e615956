package jsonrpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/testlines"
	"github.com/tether-dev/tether/wire"
)

// panicky panics while its result is encoded.
type panicky struct{}

func (panicky) MarshalJSON() ([]byte, error) { panic("no encoding today") }

func TestHandlerPanicIsAnsweredAndTheConnectionGoesOn(t *testing.T) {
	var logs testlines.Buffer
	mux := testMux()
	mux.AddFunc("boom", func(context.Context, *Request) (any, error) { panic("kaboom") })
	mux.AddFunc("badresult", func(context.Context, *Request) (any, error) { return panicky{}, nil })
	log := slog.New(slog.NewTextHandler(&logs, nil))
	_, p := serveRaw(t, &Options{Handler: mux, MaxConcurrent: 1, Logger: log}, 0)

	p.send(`{"jsonrpc":"2.0","method":"boom","id":1}`)
	p.expectJSON(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error","data":{"exception":"panic","message":"boom: panic: kaboom"}}}`)
	p.send(`{"jsonrpc":"2.0","method":"add","params":{"A":2,"B":3},"id":2}`)
	p.expectJSON(`{"jsonrpc":"2.0","id":2,"result":5}`)

	p.send(`{"jsonrpc":"2.0","method":"boom"}`) // a notification: logged, never answered
	p.expectNothing()

	p.send(`{"jsonrpc":"2.0","method":"badresult","id":3}`)
	p.expectJSON(`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error","data":{"exception":"panic","message":"badresult: result: panic: no encoding today"}}}`)
	p.send(`[{"jsonrpc":"2.0","method":"boom","id":4},{"jsonrpc":"2.0","method":"echo","params":[5],"id":5}]`)
	var batch []struct {
		ID     int
		Result json.RawMessage
		Error  *Error
	}
	if err := json.Unmarshal(p.Next(), &batch); err != nil || len(batch) != 2 {
		t.Fatalf("batch answer: %+v, %v", batch, err)
	}
	for _, r := range batch {
		if r.ID == 4 && (r.Error == nil || r.Error.Code != CodeInternalError) || r.ID == 5 && string(r.Result) != "[5]" {
			t.Errorf("batch entry %d: %+v", r.ID, r)
		}
	}

	out := logs.String()
	if n := strings.Count(out, "level=ERROR msg=\"jsonrpc: handler panicked\""); n != 3 {
		t.Errorf("%d handler panics logged at ERROR, want 3:\n%s", n, out)
	}
	if !strings.Contains(out, "notification=true") || !strings.Contains(out, "panic=kaboom") || !strings.Contains(out, "goroutine ") {
		t.Errorf("the log lacks the notification, the panic value or the stack:\n%s", out)
	}
	if !strings.Contains(out, "encoding a result panicked") {
		t.Errorf("the result's panic is not logged:\n%s", out)
	}
}

// tether's own client gets the -32001 of a request over the server's cap as
// the answer to its Call, at once, over both framings; so does a call whose
// answer is over the client's cap.
func TestOversizeCallFailsPromptly(t *testing.T) {
	capped := map[string]func(net.Conn, int) Channel{
		"ndjson":          func(c net.Conn, max int) Channel { return NDJSON(c, c, max) },
		"length-prefixed": func(c net.Conn, max int) Channel { return LengthPrefixed(c, c, max) },
	}
	for name, framing := range capped {
		t.Run(name, func(t *testing.T) {
			a, b := net.Pipe()
			mux := testMux()
			mux.AddFunc("big", func(context.Context, *Request) (any, error) { return strings.Repeat("y", 2000), nil })
			server := NewConn(framing(a, 256), &Options{Handler: mux})
			client := NewConn(framing(b, 1024), nil)
			t.Cleanup(func() {
				client.Close()
				server.Close()
			})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := client.Call(ctx, "echo", []string{strings.Repeat("x", 1000)}, nil)
			if !errors.Is(err, ErrFrameTooLarge) {
				t.Fatalf("oversize request: %v, want -32001", err)
			}
			// an answer over the client's cap: the call fails, it does not wait
			var huge json.RawMessage
			if err := client.Call(ctx, "big", nil, &huge); err == nil {
				t.Fatalf("answer over the client's cap: got %d bytes, want an error", len(huge))
			} else if !errors.Is(err, wire.ErrTooLarge) || ctx.Err() != nil {
				t.Fatalf("answer over the client's cap: %v, want a wire.ErrTooLarge error before the deadline", err)
			}
			var sum int
			if err := client.Call(ctx, "add", map[string]int{"A": 1, "B": 2}, &sum); err != nil || sum != 3 {
				t.Fatalf("after the oversize calls: %d, %v", sum, err)
			}
		})
	}
}

// The -32001 of a line over the cap carries the id only when the line's
// first 512 bytes hold all of it; otherwise the id is null.
func TestOversizeLineEchoesOnlyAWholeID(t *testing.T) {
	_, p := serveRaw(t, &Options{Handler: testMux()}, 600)
	pad := strings.Repeat("x", 1000)
	idAt := func(col int, id string) string { // a request whose id starts at byte col
		prefix := `{"jsonrpc":"2.0","method":"`
		suffix := `","id":`
		name := strings.Repeat("m", col-len(prefix)-len(suffix))
		return prefix + name + suffix + id + `,"params":["` + pad + `"]}`
	}
	cases := []struct{ line, id string }{
		{`{"jsonrpc":"2.0","id":7,"method":"echo","params":["` + pad + `"]}`, "7"},
		{`{"jsonrpc":"2.0","id":"s-1","params":["` + pad + `"],"method":"echo"}`, `"s-1"`},
		{` { "i\u0064" : -1.5e3 , "method":"echo","params":["` + pad + `"]}`, "-1.5e3"},
		{`{"jsonrpc":"2.0","id":null,"method":"echo","params":["` + pad + `"]}`, "null"},
		{`{"jsonrpc":"2.0","method":"echo","params":["` + pad + `"],"id":8}`, "null"}, // id after byte 512
		{idAt(505, "123456789"), "null"},                                              // the number is cut at byte 512
		{idAt(500, "123456789"), "123456789"},                                         // it ends just before
		{idAt(505, `"a-long-string-id"`), "null"},                                     // a string cut at byte 512
		{`{"jsonrpc":"2.0","id":1,"id":2,"method":"echo","params":["` + pad + `"]}`, "null"},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"echo","params":["` + pad + `"]}`, "null"},
		{`{"jsonrpc":"2.0","id":9}` + pad, "null"},                                      // neither request nor response
		{`{"jsonrpc":"2.0","id":3,"result":["` + pad + `"]}`, "null"},                   // a response is not answered with its id
		{`[{"jsonrpc":"2.0","id":4,"method":"echo","params":["` + pad + `"]}]`, "null"}, // a batch has no single id
		{`{"jsonrpc":"2.0","id":5,"method"` + pad, "null"},                              // broken after the name
	}
	for _, tc := range cases {
		p.send(tc.line)
		got := p.Next()
		var resp struct {
			ID    json.RawMessage
			Error *Error
		}
		if err := json.Unmarshal(got, &resp); err != nil || resp.Error == nil || resp.Error.Code != CodeFrameTooLarge || string(resp.ID) != tc.id {
			t.Errorf("line %.60s...: got %s, want -32001 with id %s", tc.line, got, tc.id)
		}
	}
	p.expectNothing()
}

// MaxConcurrent and MaxQueue bound an HTTP server, not each POST: with one
// running and one queued, five POSTs at once get two answers and three
// -32000 at once, and never two handlers run together.
func TestHTTPBoundsRequestsAcrossPosts(t *testing.T) {
	mux, peak, entered, release := holdingMux()
	srv := httptest.NewServer(NewHTTPHandler(&Options{Handler: mux, MaxConcurrent: 1, MaxQueue: 1}, 0))
	defer srv.Close()
	defer srv.Client().CloseIdleConnections()
	type answer struct {
		id   int
		body []byte
		err  error
	}
	answers := make(chan answer, 5)
	post := func(id int) {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"hold","id":%d}`, id)
		resp, err := srv.Client().Post(srv.URL, "application/json", strings.NewReader(body))
		if err != nil {
			answers <- answer{id: id, err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		answers <- answer{id, b, err}
	}
	released := false
	defer func() {
		if !released {
			close(release)
		}
	}()
	go post(1)
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the first POST never ran")
	}
	for id := 2; id <= 5; id++ {
		go post(id)
	}
	deadline := time.After(10 * time.Second)
	for range 3 { // one of POSTs 2-5 waits in the queue, the other three are refused now
		select {
		case a := <-answers:
			want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32000,"message":"server overloaded"}}`, a.id)
			if a.err != nil || !jsonEqual(t, a.body, []byte(want)) {
				t.Errorf("POST %d: %s, %v; want %s", a.id, a.body, a.err, want)
			}
		case <-deadline:
			t.Fatal("POSTs past the bound were not refused at once (each POST has its own bound?)")
		}
	}
	close(release)
	released = true
	for range 2 {
		a := <-answers
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":"held"}`, a.id)
		if a.err != nil || !jsonEqual(t, a.body, []byte(want)) {
			t.Errorf("POST %d: %s, %v; want %s", a.id, a.body, a.err, want)
		}
	}
	if p := peak.Load(); p != 1 {
		t.Errorf("%d handlers ran at once, want MaxConcurrent 1", p)
	}
}

// MaxConcurrent and MaxQueue bound a socket server (Serve), not each
// connection: with one running and one queued, two connections sending
// five requests between them get two answers and three -32000 at once,
// and never two handlers run together.
func TestServeBoundsRequestsAcrossConnections(t *testing.T) {
	mux, peak, entered, release := holdingMux()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, l, LineFraming(0), &Options{Handler: mux, MaxConcurrent: 1, MaxQueue: 1}) }()
	released := false
	defer func() {
		if !released {
			close(release)
		}
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve = %v", err)
		}
	}()
	lines := make(chan []byte, 16)
	var readers sync.WaitGroup
	defer readers.Wait()
	var conns [2]net.Conn
	for i := range conns {
		nc, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		conns[i] = nc
		readers.Go(func() {
			r := bufio.NewReader(nc)
			for {
				line, err := r.ReadBytes('\n')
				if err != nil {
					return
				}
				lines <- line
			}
		})
	}
	send := func(id int) {
		req := fmt.Sprintf(`{"jsonrpc":"2.0","method":"hold","id":%d}`+"\n", id)
		if _, err := io.WriteString(conns[id%2], req); err != nil {
			t.Fatal(err)
		}
	}
	idOf := func(line []byte) int {
		var msg struct{ ID int }
		if err := json.Unmarshal(line, &msg); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return msg.ID
	}
	send(1)
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the first request never ran")
	}
	for id := 2; id <= 5; id++ {
		send(id)
	}
	deadline := time.After(10 * time.Second)
	for range 3 { // one of requests 2-5 waits in the queue, the other three are refused now
		select {
		case line := <-lines:
			want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32000,"message":"server overloaded"}}`, idOf(line))
			if !jsonEqual(t, line, []byte(want)) {
				t.Errorf("got %s, want %s", line, want)
			}
		case <-deadline:
			t.Fatal("requests past the bound were not refused at once (each connection has its own bound?)")
		}
	}
	close(release)
	released = true
	for range 2 {
		select {
		case line := <-lines:
			want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":"held"}`, idOf(line))
			if !jsonEqual(t, line, []byte(want)) {
				t.Errorf("got %s, want %s", line, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the admitted requests were not answered")
		}
	}
	if p := peak.Load(); p != 1 {
		t.Errorf("%d handlers ran at once, want MaxConcurrent 1", p)
	}
}

// holdingMux serves "hold", which signals entered and answers "held" once
// release is closed; peak is the most handlers that ran at once.
func holdingMux() (mux *Mux, peak *atomic.Int32, entered, release chan struct{}) {
	var running atomic.Int32
	peak = new(atomic.Int32)
	entered, release = make(chan struct{}, 8), make(chan struct{})
	mux = testMux()
	mux.AddFunc("hold", func(context.Context, *Request) (any, error) {
		n := running.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		entered <- struct{}{}
		<-release
		running.Add(-1)
		return "held", nil
	})
	return mux, peak, entered, release
}
