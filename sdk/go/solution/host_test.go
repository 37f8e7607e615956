package solution_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/sdk/go/solution"
)

// script drives a Host over pipes with raw frames.
func script(t *testing.T, opts *solution.Options, register func(h *solution.Host)) (send func(string), recv func() string, done func()) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := solution.New(inR, outW, opts)
	register(h)
	served := make(chan error, 1)
	go func() { served <- h.Serve(context.Background()); outW.Close() }()
	sc := bufio.NewScanner(outR)
	recv = func() string {
		if !sc.Scan() {
			return ""
		}
		return sc.Text()
	}
	send = func(line string) { io.WriteString(inW, line+"\n") }
	done = func() {
		inW.Close()
		for sc.Scan() {
		}
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}
	return
}

func TestReadyFirstThenCalls(t *testing.T) {
	send, recv, done := script(t, nil, func(h *solution.Host) {
		h.Register("twice", func(ctx context.Context, args []any) (any, error) { return args[0].(string) + args[0].(string), nil })
	})
	defer done()
	if l := recv(); l != `{"type":"ready"}` {
		t.Fatalf("first line %q", l)
	}
	send(`not a frame`)
	send(`{"type":"call","id":"1","fn":"twice","args":["ab"]}`)
	if l := recv(); l != `{"type":"result","id":"1","value":"abab"}` {
		t.Fatalf("%q", l)
	}
	send(`{"type":"call","id":"2","fn":"nope","args":[]}`)
	if l := recv(); l != `{"type":"error","id":"2","code":"NotFound","message":"function 'nope' not registered"}` {
		t.Fatalf("%q", l)
	}
	send(`{"type":"call","id":"3","fn":"twice","args":"x"}`)
	if l := recv(); !strings.Contains(l, `"code":"Rejected"`) {
		t.Fatalf("%q", l)
	}
}

// registerSleep registers "sleep": it waits its argument's milliseconds
// and returns it.
func registerSleep(h *solution.Host) {
	h.Register("sleep", func(ctx context.Context, args []any) (any, error) {
		time.Sleep(time.Duration(args[0].(int64)) * time.Millisecond)
		return args[0], nil
	})
}

// A sequential host answers in arrival order, a concurrent one answers a
// fast call before a slow one that came first.
func TestAnswerOrder(t *testing.T) {
	for _, c := range []struct {
		name      string
		opts      *solution.Options
		slowMs    string
		wantFirst string
	}{
		{"sequential", &solution.Options{Sequential: true}, "100", "slow"},
		{"concurrent", nil, "300", "fast"},
	} {
		t.Run(c.name, func(t *testing.T) {
			send, recv, done := script(t, c.opts, registerSleep)
			defer done()
			recv()
			send(`{"type":"call","id":"slow","fn":"sleep","args":[` + c.slowMs + `]}`)
			send(`{"type":"call","id":"fast","fn":"sleep","args":[0]}`)
			if l := recv(); !strings.Contains(l, `"id":"`+c.wantFirst+`"`) {
				t.Fatalf("%s host answered %q first, want %s", c.name, l, c.wantFirst)
			}
			recv()
		})
	}
}

func TestCallCapabilityWithoutServe(t *testing.T) {
	h := solution.New(strings.NewReader(""), io.Discard, nil)
	if _, err := h.CallCapability(context.Background(), "x"); !errors.Is(err, solution.ErrConnection) {
		t.Fatalf("err = %v", err)
	}
}

// Goroutines kept from finished calls must not serialise later calls: with
// idle workers waiting, a slow call still does not hold up a fast one, and
// Serve's end stops the idle workers (goleak checks in TestMain).
func TestReusedWorkersStillRunCallsConcurrently(t *testing.T) {
	send, recv, done := script(t, nil, registerSleep)
	defer done()
	recv()
	for round := range 3 {
		for i := range 8 {
			send(`{"type":"call","id":"w` + string(rune('a'+i)) + `","fn":"sleep","args":[0]}`)
		}
		for range 8 {
			recv()
		}
		send(`{"type":"call","id":"slow","fn":"sleep","args":[300]}`)
		send(`{"type":"call","id":"fast","fn":"sleep","args":[0]}`)
		if l := recv(); !strings.Contains(l, `"id":"fast"`) {
			t.Fatalf("round %d: host with idle workers answered %q first", round, l)
		}
		recv()
	}
}

// readerOnly hides the pipe's Close, like os.Stdin, which Serve never
// closes: the reading goroutine then outlives a failed Serve.
type readerOnly struct{ io.Reader }

type failingWriter struct{}

var errBrokenPipe = errors.New("broken pipe")

func (failingWriter) Write([]byte) (int, error) { return 0, errBrokenPipe }

// A call that arrives after Serve failed to write ready is dropped, not
// sent to the stopped workers (which would panic on their closed channel)
// nor run by a goroutine nobody waits for.
func TestCallAfterFailedStartIsDropped(t *testing.T) {
	for _, sequential := range []bool{false, true} {
		t.Run(fmt.Sprintf("sequential=%v", sequential), func(t *testing.T) { callAfterFailedStart(t, sequential) })
	}
}

// callAfterFailedStart: a call read after Serve failed to write ready is
// neither run nor sent to a closed queue (which would panic).
func callAfterFailedStart(t *testing.T, sequential bool) {
	inR, inW := io.Pipe()
	h := solution.New(readerOnly{inR}, failingWriter{}, &solution.Options{Sequential: sequential})
	ran := make(chan struct{}, 1)
	h.Register("f", func(ctx context.Context, args []any) (any, error) { ran <- struct{}{}; return 1, nil })
	if err := h.Serve(context.Background()); !errors.Is(err, errBrokenPipe) {
		t.Fatalf("Serve = %v, want the write error", err)
	}
	// io.Pipe's Write returns once the reading goroutine has taken the line.
	if _, err := io.WriteString(inW, `{"type":"call","id":"late","fn":"f","args":[]}`+"\n"); err != nil {
		t.Fatal(err)
	}
	inW.Close() // the reading goroutine ends at EOF (goleak checks in TestMain)
	select {
	case <-ran:
		t.Fatal("a call arriving after Serve returned was run")
	case <-time.After(50 * time.Millisecond):
	}
}

// A call whose arguments the codec refuses -- a duplicate key, Python's
// NaN / Infinity tokens, a number that overflows float64, bad __bytes__ --
// is answered Rejected with the codec's reason and the call's id, as the
// Python host does, instead of being dropped until the judge's CallTimeout.
func TestUndecodableCallAnsweredRejected(t *testing.T) {
	for _, sequential := range []bool{false, true} {
		t.Run(fmt.Sprintf("sequential=%v", sequential), func(t *testing.T) {
			send, recv, done := script(t, &solution.Options{Sequential: sequential}, func(h *solution.Host) {
				h.Register("echo", func(ctx context.Context, args []any) (any, error) { return args, nil })
			})
			defer done()
			recv()
			for _, c := range []struct{ call, want string }{
				{`{"type":"call","id":"d","fn":"echo","args":[{"a":1,"a":2}]}`, `{"type":"error","id":"d","code":"Rejected","message":"args[0][\"a\"]: duplicate key at offset 51"}`},
				{`{"type":"call","id":"n","fn":"echo","args":[NaN]}`, `{"type":"error","id":"n","code":"Rejected","message":"args[0]: NaN is not transferable"}`},
				{`{"type": "call", "id": "i", "fn": "echo", "args": [1, -Infinity]}`, `{"type":"error","id":"i","code":"Rejected","message":"args[1]: -Infinity is not transferable"}`},
				{`{"type":"call","id":"o","fn":"echo","args":[1e400]}`, `{"type":"error","id":"o","code":"Rejected","message":"args[0]: number 1e400 overflows float64 and is not transferable"}`},
				{`{"type":"call","id":"b","fn":"echo","args":[{"__bytes__":"!"}]}`, `{"type":"error","id":"b","code":"Rejected","message":"args[0]: invalid base64 in __bytes__: illegal base64 data at input byte 0"}`},
			} {
				send(`{"type":"call","fn":"echo","args":[NaN]}`) // no id: nobody to answer
				send(c.call)
				if l := recv(); l != c.want {
					t.Errorf("%s:\n got %s\nwant %s", c.call, l, c.want)
				}
			}
			send(`{"type":"call","id":"ok","fn":"echo","args":[1]}`)
			if l := recv(); l != `{"type":"result","id":"ok","value":[1]}` {
				t.Fatalf("after rejected calls: %q", l)
			}
		})
	}
}

// A capability response the codec refuses (a Python evaluator writes NaN
// by default) fails that CallCapability with ErrCapabilityRejected and the
// codec's reason, instead of leaving it waiting.
func TestUndecodableCapabilityResultFailsCall(t *testing.T) {
	var host *solution.Host
	send, recv, done := script(t, nil, func(h *solution.Host) {
		host = h
		h.Register("ask", func(ctx context.Context, args []any) (any, error) {
			_, err := host.CallCapability(ctx, "llm")
			var ce *solution.CapabilityError
			if !errors.Is(err, solution.ErrCapabilityRejected) || !errors.As(err, &ce) {
				return nil, fmt.Errorf("want ErrCapabilityRejected, got %v", err)
			}
			return ce.Message, nil
		})
	})
	defer done()
	recv()
	for _, c := range []struct{ resp, want string }{
		{`{"type":"result","id":ID,"value":NaN}`, "value: NaN is not transferable"},
		{`{"type":"result","id":ID,"value":{"x":[Infinity]}}`, `value["x"][0]: Infinity is not transferable`},
	} {
		send(`{"type":"call","id":"1","fn":"ask","args":[]}`)
		var capFrame struct{ Type, ID string }
		if err := json.Unmarshal([]byte(recv()), &capFrame); err != nil || capFrame.Type != "capability" {
			t.Fatalf("want a capability frame: %v %+v", err, capFrame)
		}
		send(strings.Replace(c.resp, "ID", `"`+capFrame.ID+`"`, 1))
		want, _ := json.Marshal(c.want)
		if l := recv(); l != `{"type":"result","id":"1","value":`+string(want)+`}` {
			t.Errorf("%s: got %s", c.resp, l)
		}
	}
}
