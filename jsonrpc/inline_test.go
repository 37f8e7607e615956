package jsonrpc

import (
	"context"
	"encoding/json"
	"io"
	"testing"
)

// Requests that arrive one at a time run on the reader: no handler
// goroutine is started for them (inline.go).
func TestLoneRequestsRunOnTheReader(t *testing.T) {
	for name, framing := range framings {
		t.Run(name, func(t *testing.T) {
			server, client := pair(t, framing, &Options{Handler: testMux()}, nil)
			for i := range 3 {
				var n int
				if err := client.Call(context.Background(), "add", map[string]int{"A": i, "B": 1}, &n); err != nil || n != i+1 {
					t.Fatalf("add %d+1 = %d, %v", i, n, err)
				}
			}
			server.Close() // the reader has stopped: its fields may be read
			if server.workers != 0 {
				t.Errorf("%d handler goroutines started for requests sent one at a time, want 0", server.workers)
			}
		})
	}
}

// A lone handler that blocks on something other than its context or a
// call to its peer still lets the next message be read and run: here the
// second request is what unblocks the first.
func TestLoneHandlerThatBlocksLetsReadingGoOn(t *testing.T) {
	mux := testMux()
	wait := addGate(mux, "wait", "waited")
	mux.AddFunc("open", func(context.Context, *Request) (any, error) { wait.open(); return "opened", nil })
	_, p := serveRaw(t, &Options{Handler: mux}, 0)
	t.Cleanup(wait.open)
	p.send(`{"jsonrpc":"2.0","method":"wait","id":1}`) // alone: runs on the reader
	// A write on the pipe returns once it is read; read or not, cleanup
	// closes the pipe, which ends it.
	go io.WriteString(p.conn, `{"jsonrpc":"2.0","method":"open","id":2}`+"\n")
	got := map[string]bool{}
	for range 2 {
		var resp struct {
			ID     int
			Result string
		}
		if err := json.Unmarshal(p.Next(), &resp); err != nil {
			t.Fatal(err)
		}
		got[resp.Result] = true
	}
	if !got["waited"] || !got["opened"] {
		t.Fatalf("answers %v, want waited and opened", got)
	}
}

// A handler run on the reader holds a running slot for as long as it runs,
// after reading has moved on: with MaxConcurrent 1, a request read
// meanwhile waits, and cancelled while it waits it never runs.
func TestHandlerOnTheReaderHoldsItsRunningSlot(t *testing.T) {
	mux := testMux()
	hold := addGate(mux, "hold", "held")
	_, p := serveRaw(t, &Options{Handler: mux, MaxConcurrent: 1}, 0)
	t.Cleanup(hold.open)
	p.send(`{"jsonrpc":"2.0","method":"hold","id":1}`) // alone: runs on the reader
	if id := <-hold.entered; id != "1" {
		t.Fatalf("entered %s first, want 1", id)
	}
	go io.WriteString(p.conn, `{"jsonrpc":"2.0","method":"hold","id":2}`+"\n"+
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}`+"\n")
	p.expectJSON(`{"jsonrpc":"2.0","id":2,"error":{"code":-32800,"message":"request cancelled"}}`)
	hold.open()
	p.expectJSON(`{"jsonrpc":"2.0","id":1,"result":"held"}`)
}
