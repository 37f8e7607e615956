package evaluator_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tether-dev/tether/codec"
	"github.com/tether-dev/tether/internal/testlines"
	"github.com/tether-dev/tether/sdk/go/evaluator"
	"github.com/tether-dev/tether/sdk/go/solution"
)

// pair joins a Runner and a Host by direct pipes (no judge in between).
type pair struct {
	r        *evaluator.Runner
	h        *solution.Host
	evOut    *io.PipeWriter // evaluator stdout -> solution stdin
	solOut   *io.PipeWriter
	served   chan error
	logs     chan string
	solStdin *io.PipeReader
}

func newPair(t *testing.T, sequential bool, register func(h *solution.Host)) *pair {
	t.Helper()
	evToSol, evOut := io.Pipe()
	solToEv, solOut := io.Pipe()
	p := &pair{evOut: evOut, solOut: solOut, served: make(chan error, 1), logs: make(chan string, 16), solStdin: evToSol}
	p.h = solution.New(evToSol, solOut, &solution.Options{Sequential: sequential})
	register(p.h)
	go func() { p.served <- p.h.Serve(context.Background()); solOut.Close() }()
	// The judge swallows ready; with direct pipes the Runner sees it and ignores it.
	p.r = evaluator.New(solToEv, evOut, &evaluator.Options{Log: func(s, d string) { p.logs <- s + ":" + d }})
	t.Cleanup(func() {
		evOut.Close() // solution stdin EOF: Serve returns
		if err := <-p.served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		p.r.Close()
	})
	return p
}

func basicFuncs(h *solution.Host) {
	h.Register("add", func(ctx context.Context, args []any) (any, error) {
		return args[0].(int64) + args[1].(int64), nil
	})
	h.Register("fail", func(ctx context.Context, args []any) (any, error) {
		return nil, errors.New("bad input")
	})
	h.Register("panic", func(ctx context.Context, args []any) (any, error) {
		panic("kaboom")
	})
	h.Register("nan", func(ctx context.Context, args []any) (any, error) {
		return math.NaN(), nil
	})
	h.Register("echo", func(ctx context.Context, args []any) (any, error) { return args, nil })
}

func TestCallRoundTrip(t *testing.T) {
	p := newPair(t, false, basicFuncs)
	v, err := p.r.Call(context.Background(), "add", 2, 40)
	if err != nil || v != int64(42) {
		t.Fatalf("add = %v, %v", v, err)
	}
	v, err = p.r.Call(context.Background(), "echo", []byte{0, 1}, "é", nil, map[string]any{"k": 1.5})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(v)
	if got != "[[0 1] é <nil> map[k:1.5]]" {
		t.Fatalf("echo = %s", got)
	}
}

func TestCallErrorsMapToSentinels(t *testing.T) {
	p := newPair(t, false, basicFuncs)
	ctx := context.Background()
	_, err := p.r.Call(ctx, "missing")
	var ce *evaluator.CallError
	if !errors.Is(err, evaluator.ErrNotFound) || !errors.As(err, &ce) || ce.Message != "function 'missing' not registered" {
		t.Fatalf("missing: %v", err)
	}
	_, err = p.r.Call(ctx, "fail")
	if !errors.Is(err, evaluator.ErrException) || !errors.As(err, &ce) || ce.Message != "bad input" {
		t.Fatalf("fail: %v", err)
	}
	_, err = p.r.Call(ctx, "panic")
	if !errors.Is(err, evaluator.ErrException) || !errors.As(err, &ce) || !strings.Contains(ce.Trace, "runner_test.go") || strings.Contains(ce.Trace, "/runner_test.go") {
		t.Fatalf("panic: %v (trace must name the file without its directory)", err)
	}
	_, err = p.r.Call(ctx, "nan")
	if !errors.Is(err, evaluator.ErrRejected) {
		t.Fatalf("nan result: %v", err)
	}
	_, err = p.r.Call(ctx, "echo", math.Inf(1))
	if !errors.Is(err, evaluator.ErrRejected) {
		t.Fatalf("Inf argument: %v", err)
	}
	_, err = p.r.Call(ctx, "echo", strings.Repeat("x", 1<<20))
	if !errors.Is(err, evaluator.ErrRejected) {
		t.Fatalf("oversize argument: %v", err)
	}
}

func TestManyConcurrentCalls(t *testing.T) {
	for _, seq := range []bool{false, true} {
		t.Run(fmt.Sprint("sequential=", seq), func(t *testing.T) {
			p := newPair(t, seq, basicFuncs)
			var wg sync.WaitGroup
			errs := make(chan error, 200)
			for i := range 200 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					v, err := p.r.Call(context.Background(), "add", i, 1)
					if err != nil || v != int64(i+1) {
						errs <- fmt.Errorf("add(%d,1) = %v, %v", i, v, err)
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

func TestCapabilityFromInsideACall(t *testing.T) {
	p := newPair(t, true, func(h *solution.Host) {
		h.Register("ask", func(ctx context.Context, args []any) (any, error) {
			v, err := h.CallCapability(ctx, "llm", args[0])
			if err != nil {
				return nil, err
			}
			h.Log("stdout", "asked\n")
			return v, nil
		})
		h.Register("ask_missing", func(ctx context.Context, args []any) (any, error) {
			_, err := h.CallCapability(ctx, "nope")
			if !errors.Is(err, solution.ErrCapabilityNotFound) {
				return nil, fmt.Errorf("want ErrCapabilityNotFound, got %v", err)
			}
			var ce *solution.CapabilityError
			errors.As(err, &ce)
			return ce.Message, nil
		})
		h.Register("ask_failing", func(ctx context.Context, args []any) (any, error) {
			_, err := h.CallCapability(ctx, "broken")
			if !errors.Is(err, solution.ErrCapability) {
				return nil, fmt.Errorf("want ErrCapability, got %v", err)
			}
			return "ok", nil
		})
	})
	if err := p.r.RegisterCapability("llm", func(ctx context.Context, args []any) (any, error) {
		return "answer to " + args[0].(string), nil
	}, time.Second); err != nil {
		t.Fatal(err)
	}
	p.r.RegisterCapability("broken", func(ctx context.Context, args []any) (any, error) { panic("x") }, 0)
	v, err := p.r.Call(context.Background(), "ask", "q")
	if err != nil || v != "answer to q" {
		t.Fatalf("ask = %v, %v", v, err)
	}
	if l := <-p.logs; l != "stdout:asked\n" {
		t.Fatalf("log = %q", l)
	}
	v, err = p.r.Call(context.Background(), "ask_missing")
	if err != nil || v != "capability 'nope' not registered" {
		t.Fatalf("ask_missing = %v, %v", v, err)
	}
	if v, err = p.r.Call(context.Background(), "ask_failing"); err != nil || v != "ok" {
		t.Fatalf("ask_failing = %v, %v", v, err)
	}
}

func TestConnectionClosedFailsPendingCalls(t *testing.T) {
	block := make(chan struct{})
	p := newPair(t, false, func(h *solution.Host) {
		h.Register("block", func(ctx context.Context, args []any) (any, error) {
			h.Log("stdout", "blocking") // written after ready, which must not meet a closed pipe
			select {
			case <-block:
			case <-ctx.Done():
			}
			return nil, nil
		})
	})
	done := make(chan error, 1)
	go func() { _, err := p.r.Call(context.Background(), "block"); done <- err }()
	if l := <-p.logs; l != "stdout:blocking" { // the call is pending: the solution is running it
		t.Fatalf("log = %q", l)
	}
	p.solOut.CloseWithError(io.EOF) // the solution's stdout ends: host gone
	if err := <-done; !errors.Is(err, evaluator.ErrClosed) {
		t.Fatalf("pending call: %v, want ErrClosed", err)
	}
	if _, err := p.r.Call(context.Background(), "block"); !errors.Is(err, evaluator.ErrClosed) {
		t.Fatalf("call after close: %v, want ErrClosed", err)
	}
	close(block)
}

func TestCallContextCancel(t *testing.T) {
	block := make(chan struct{})
	p := newPair(t, false, func(h *solution.Host) {
		h.Register("block", func(ctx context.Context, args []any) (any, error) { <-block; return 1, nil })
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := p.r.Call(ctx, "block"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	close(block)
}

func TestResultWrittenOnce(t *testing.T) {
	r, _, recv := rawRunner(t)
	if err := r.Accept(87.456, map[string]any{"cases": 3}); err != nil {
		t.Fatal(err)
	}
	if err := r.WrongAnswer(0, nil); !errors.Is(err, evaluator.ErrResultDone) {
		t.Fatalf("second result: %v", err)
	}
	got := []string{recv(), recv()}
	if got[0] != "---RESULT---" || got[1] != `{"status":"Accepted","score":8746,"details":{"cases":3}}` {
		t.Fatalf("result lines %q", got)
	}
}

// Each status shorthand writes its status and, for the three that take a
// message, details {"message": ...}, as the Python SDK's functions do.
func TestResultShorthands(t *testing.T) {
	for _, c := range []struct {
		write func(r *evaluator.Runner) error
		want  string
	}{
		{func(r *evaluator.Runner) error { return r.TimeLimitExceeded("add(1, 2) timed out") }, `{"status":"TimeLimitExceeded","score":0,"details":{"message":"add(1, 2) timed out"}}`},
		{func(r *evaluator.Runner) error { return r.RuntimeError("boom") }, `{"status":"RuntimeError","score":0,"details":{"message":"boom"}}`},
		{func(r *evaluator.Runner) error { return r.SystemError("broken") }, `{"status":"SystemError","score":0,"details":{"message":"broken"}}`},
		{func(r *evaluator.Runner) error { return r.PartiallyCorrect(37.5, nil) }, `{"status":"PartiallyCorrect","score":3750,"details":{}}`},
	} {
		r, _, recv := rawRunner(t)
		if err := c.write(r); err != nil {
			t.Fatal(err)
		}
		recv() // ---RESULT---
		if line := recv(); line != c.want {
			t.Errorf("result %s, want %s", line, c.want)
		}
	}
}

// The score is round(score*100) as Python's round computes it (halves to
// even), so a Go and a Python evaluator give the same score.
func TestResultScoreRoundsLikePython(t *testing.T) {
	for _, c := range []struct {
		score float64
		want  string
	}{{0.125, "12"}, {0.375, "38"}, {87.456, "8746"}, {0.005, "0"}, {100, "10000"}} {
		t.Run(fmt.Sprint(c.score), func(t *testing.T) {
			r, _, recv := rawRunner(t)
			if err := r.Accept(c.score, nil); err != nil {
				t.Fatal(err)
			}
			recv() // ---RESULT---
			if line, want := recv(), `{"status":"Accepted","score":`+c.want+`,"details":{}}`; line != want {
				t.Errorf("Accept(%v): %s, want %s", c.score, line, want)
			}
		})
	}
}

// A capability's exception message is cut at 1024 characters, not bytes, so
// the cut never splits one.
func TestCapabilityMessageCutAt1024Characters(t *testing.T) {
	p := newPair(t, true, func(h *solution.Host) {
		h.Register("ask", func(ctx context.Context, args []any) (any, error) {
			_, err := h.CallCapability(ctx, "long")
			var ce *solution.CapabilityError
			if !errors.As(err, &ce) {
				return nil, fmt.Errorf("want a CapabilityError, got %v", err)
			}
			return ce.Message, nil
		})
	})
	p.r.RegisterCapability("long", func(ctx context.Context, args []any) (any, error) {
		return nil, errors.New(strings.Repeat("é", 2000))
	}, 0)
	v, err := p.r.Call(context.Background(), "ask")
	if err != nil || v != strings.Repeat("é", 1024) {
		t.Fatalf("message %d bytes, %v; want 1024 characters", len(fmt.Sprint(v)), err)
	}
}

// rawRunner is a Runner over pipes driven with raw frames.
func rawRunner(t *testing.T) (r *evaluator.Runner, send func(string), recv func() string) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r = evaluator.New(inR, outW, nil)
	lines := testlines.Read(t, outR)
	t.Cleanup(func() {
		inW.Close()
		r.Close()
		outW.Close()
	})
	send = func(line string) { io.WriteString(inW, line+"\n") }
	recv = func() string { return string(lines.Next()) }
	return r, send, recv
}

// A capability frame whose arguments the codec refuses (a duplicate key,
// Python's NaN / Infinity tokens, ...) is answered Rejected in the Python
// evaluator's words, instead of being dropped until the judge's
// CallTimeout.
func TestUndecodableCapabilityAnsweredRejected(t *testing.T) {
	r, send, recv := rawRunner(t)
	ran := make(chan struct{}, 8)
	r.RegisterCapability("llm", func(ctx context.Context, args []any) (any, error) { ran <- struct{}{}; return args, nil }, 0)
	if l := recv(); l != `{"type":"cap_reg","name":"llm"}` {
		t.Fatalf("%q", l)
	}
	for _, c := range []struct{ frame, want string }{
		{`{"type":"capability","id":"n","name":"llm","args":[NaN]}`, `{"type":"error","id":"n","code":"Rejected","message":"undecodable capability: args[0]: NaN is not transferable"}`},
		{`{"type": "capability", "id": "i", "name": "llm", "args": [{"x": Infinity}]}`, `{"type":"error","id":"i","code":"Rejected","message":"undecodable capability: args[0][\"x\"]: Infinity is not transferable"}`},
		{`{"type":"capability","id":"d","name":"llm","args":[{"a":1,"a":2}]}`, `{"type":"error","id":"d","code":"Rejected","message":"undecodable capability: args[0][\"a\"]: duplicate key at offset 58"}`},
		{`{"type":"capability","id":"u","name":"nope","args":[-Infinity]}`, `{"type":"error","id":"u","code":"Rejected","message":"undecodable capability: args[0]: -Infinity is not transferable"}`},
	} {
		send(`{"type":"capability","id":7,"name":"llm","args":[NaN]}`) // no string id: nobody to answer
		send(c.frame)
		if l := recv(); l != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.frame, l, c.want)
		}
	}
	send(`{"type":"capability","id":"ok","name":"llm","args":[1]}`)
	if l := recv(); l != `{"type":"result","id":"ok","value":[1]}` {
		t.Fatalf("after rejected capabilities: %q", l)
	}
	if len(ran) != 1 {
		t.Fatalf("handler ran %d times, want 1", len(ran))
	}
}

// A result the codec refuses -- a Python host writes NaN by default --
// fails the pending Call with ErrRejected and the codec's reason instead
// of leaving it waiting.
func TestUndecodableResultFailsCall(t *testing.T) {
	r, send, recv := rawRunner(t)
	for _, c := range []struct{ resp, want string }{
		{`{"type":"result","id":ID,"value":NaN}`, "value: NaN is not transferable"},
		{`{"type": "result", "id": ID, "value": [1, -Infinity]}`, "value[1]: -Infinity is not transferable"},
		{`{"type":"result","id":ID,"value":{"a":1,"a":2}}`, `value["a"]: duplicate key at offset 72`},
	} {
		err := callAnswered(t, r, send, recv, c.resp)
		var ce *evaluator.CallError
		if !errors.Is(err, evaluator.ErrRejected) || !errors.As(err, &ce) || ce.Code != "Rejected" || ce.Message != c.want {
			t.Errorf("%s: %v, want Rejected %q", c.resp, err, c.want)
		}
	}
}

// An answer the codec refuses for its size -- nesting deeper than
// codec.MaxDepth, deeper than any JSON parser's own limit, an integer longer
// than codec.MaxIntDigits -- fails its Call at once with ErrRejected, like
// any other undecodable answer, instead of leaving it to wait for ever.
func TestOversizedAnswerFailsCallAtOnce(t *testing.T) {
	r, send, recv := rawRunner(t)
	nested := func(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }
	digits := strings.Repeat("7", codec.MaxIntDigits+1)
	for _, c := range []struct{ name, resp, want string }{
		{"nesting over the codec's limit", `{"type":"result","id":ID,"value":` + nested(codec.MaxDepth+1) + `}`, "nesting too deep"},
		{"nesting over encoding/json's limit", `{"type":"result","value":` + nested(200000) + `,"id":ID}`, "nesting too deep"},
		{"integer over the digit limit", `{"type":"result","id":ID,"value":[` + digits + `]}`, "digits"},
	} {
		err := callAnswered(t, r, send, recv, c.resp)
		var ce *evaluator.CallError
		if !errors.Is(err, evaluator.ErrRejected) || !errors.As(err, &ce) || ce.Code != "Rejected" || !strings.Contains(ce.Message, c.want) {
			t.Errorf("%s: %v, want Rejected %q", c.name, err, c.want)
		}
	}
}

// callAnswered is the error of r.Call("f") answered with resp, its ID
// standing for the call's id.
func callAnswered(t *testing.T, r *evaluator.Runner, send func(string), recv func() string, resp string) error {
	t.Helper()
	errs := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err := r.Call(ctx, "f")
		errs <- err
	}()
	var call struct{ Type, ID string }
	if err := json.Unmarshal([]byte(recv()), &call); err != nil || call.Type != "call" {
		t.Fatalf("want a call frame: %v %+v", err, call)
	}
	send(strings.Replace(resp, "ID", `"`+call.ID+`"`, 1))
	return <-errs
}

// The result marker carries the run's nonce when the judge gives one (the
// environment, or Options.ResultNonce), and marker and payload come out
// as two adjacent lines.
func TestResultMarkerSigned(t *testing.T) {
	t.Setenv(codec.ResultNonceEnv, "n0nce")
	r, _, recv := rawRunner(t)
	if err := r.WrongAnswer(0, nil); err != nil {
		t.Fatal(err)
	}
	if got := []string{recv(), recv()}; got[0] != "---RESULT--- n0nce" || got[1] != `{"status":"WrongAnswer","score":0,"details":{}}` {
		t.Fatalf("result lines %q", got)
	}
}
