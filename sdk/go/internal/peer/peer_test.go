package peer

import (
	"bufio"
	"context"
	"io"
	"testing"
	"time"

	"github.com/tether-dev/tether/codec"
	"github.com/tether-dev/tether/sdk/go/internal/frame"
)

// remote is the other end of a Peer over pipes.
type remote struct {
	p    *Peer
	send func(line string)
	recv *bufio.Scanner
}

func newRemote(t *testing.T, onUndecodable func(frame.Undecodable)) *remote {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := New(inR, outW, func(frame.Frame) {})
	p.OnUndecodable(onUndecodable)
	p.Start()
	t.Cleanup(func() {
		inW.Close()
		p.Close()
		outR.Close()
	})
	return &remote{
		p:    p,
		send: func(line string) { io.WriteString(inW, line+"\n") },
		recv: bufio.NewScanner(outR),
	}
}

// A response the codec refuses -- here with Python's default NaN and
// Infinity tokens, which encoding/json cannot read either -- fails the
// pending request with code Rejected instead of leaving it waiting.
func TestUndecodableResponseFailsRequest(t *testing.T) {
	for _, c := range []struct{ resp, message string }{
		{`{"type":"result","id":"ID","value":NaN}`, "value: NaN is not transferable"},
		{`{"type": "result", "id": "ID", "value": [-Infinity]}`, "value[0]: -Infinity is not transferable"},
		{`{"type":"result","id":"ID","value":{"a":1,"a":Infinity}}`, `value["a"]: duplicate key at offset 42`},
		{`{"type":"error","id":"ID","code":"Exception","message":"\ud800"}`, "message: lone surrogate \\ud800 at offset 56 is not valid UTF-8"},
	} {
		r := newRemote(t, nil)
		go func() {
			r.recv.Scan()
			r.send(`{"type":"result","id":"other","value":NaN}`) // no such request: dropped
			r.send(c.resp)
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		f, err := r.p.Request(ctx, "ID", []byte(`{"type":"call","id":"ID","fn":"f","args":[]}`))
		cancel()
		if err != nil {
			t.Fatalf("%s: Request: %v", c.resp, err)
		}
		if f.Type != "error" || f.ID != "ID" || f.Code != codec.CodeRejected || f.Message != c.message {
			t.Errorf("%s: got %+v, want Rejected %q", c.resp, f, c.message)
		}
	}
}

// Other frames the codec refuses go to OnUndecodable when their type and
// id can be read; garbage does not.
func TestUndecodableRequestGoesToCallback(t *testing.T) {
	got := make(chan frame.Undecodable, 4)
	r := newRemote(t, func(u frame.Undecodable) { got <- u })
	r.send(`not a frame`)
	r.send(`{"type":"call","fn":"f","args":[NaN]}`)
	r.send(`{"type":"call","id":"c1","fn":"f","args":[1,NaN]}`)
	r.send(`{"type":"capability","id":"k1","name":"n","args":[{"a":1,"a":2}]}`)
	want := []frame.Undecodable{
		{Type: "call", ID: "c1", Message: "args[1]: NaN is not transferable"},
		{Type: "capability", ID: "k1", Message: `args[0]["a"]: duplicate key at offset 57`},
	}
	for _, w := range want {
		select {
		case u := <-got:
			if u != w {
				t.Errorf("got %+v, want %+v", u, w)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no callback for %+v", w)
		}
	}
}
