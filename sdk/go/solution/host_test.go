package solution_test

import (
	"bufio"
	"context"
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

func TestSequentialRunsInArrivalOrder(t *testing.T) {
	send, recv, done := script(t, &solution.Options{Sequential: true}, func(h *solution.Host) {
		h.Register("sleep", func(ctx context.Context, args []any) (any, error) {
			time.Sleep(time.Duration(args[0].(int64)) * time.Millisecond)
			return args[0], nil
		})
	})
	defer done()
	recv()
	send(`{"type":"call","id":"slow","fn":"sleep","args":[100]}`)
	send(`{"type":"call","id":"fast","fn":"sleep","args":[0]}`)
	if l := recv(); !strings.Contains(l, `"id":"slow"`) {
		t.Fatalf("sequential host answered %q first", l)
	}
	recv()
}

func TestConcurrentAnswersFastCallFirst(t *testing.T) {
	send, recv, done := script(t, nil, func(h *solution.Host) {
		h.Register("sleep", func(ctx context.Context, args []any) (any, error) {
			time.Sleep(time.Duration(args[0].(int64)) * time.Millisecond)
			return args[0], nil
		})
	})
	defer done()
	recv()
	send(`{"type":"call","id":"slow","fn":"sleep","args":[300]}`)
	send(`{"type":"call","id":"fast","fn":"sleep","args":[0]}`)
	if l := recv(); !strings.Contains(l, `"id":"fast"`) {
		t.Fatalf("concurrent host answered %q first", l)
	}
	recv()
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
	send, recv, done := script(t, nil, func(h *solution.Host) {
		h.Register("sleep", func(ctx context.Context, args []any) (any, error) {
			time.Sleep(time.Duration(args[0].(int64)) * time.Millisecond)
			return args[0], nil
		})
	})
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
