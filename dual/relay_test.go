package dual

import (
	"bufio"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// fakeSide is the far end of one side's pipes, played by the test.
type fakeSide struct {
	stdin  *bufio.Reader  // what the relay wrote to the side
	inR    *io.PipeReader // closing it makes the relay's writes fail
	stdout *io.PipeWriter // what the side "prints"
}

func newFake() (Endpoint, *fakeSide) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	return Endpoint{Stdin: inW, Stdout: outR}, &fakeSide{stdin: bufio.NewReader(inR), inR: inR, stdout: outW}
}

func (f *fakeSide) send(line string) error {
	_, err := io.WriteString(f.stdout, line+"\n")
	return err
}

func (f *fakeSide) recv() (string, error) {
	s, err := f.stdin.ReadString('\n')
	return strings.TrimSuffix(s, "\n"), err
}

// expect fails t unless the next line the relay wrote to the side is want.
func (f *fakeSide) expect(t *testing.T, want string) {
	t.Helper()
	if got, err := f.recv(); got != want {
		t.Fatalf("got %q (%v), want %s", got, err, want)
	}
}

// echoSolution sends ready and answers every call with its own args as value
// until its stdin ends.
func echoSolution(f *fakeSide) error {
	defer f.stdout.Close()
	if err := f.send(ready); err != nil {
		return err
	}
	for {
		line, err := f.recv()
		if err != nil {
			return nil
		}
		var fr Frame
		if k, _ := Classify([]byte(line), &fr); k != Framed || fr.Type != TypeCall {
			continue
		}
		if err := f.send(`{"type":"result","id":` + string(fr.ID) + `,"value":"ok"}`); err != nil {
			return nil
		}
	}
}

// collector gathers the relay's output, logs and drops; events come one at
// a time.
type collector struct {
	mu     sync.Mutex
	output []string
	result []string // result lines, then "payload: " and the payload
	logs   []string
	warns  []DropReason
}

func (c *collector) observer() Observer[Event] {
	return observe(func(ev *Event) {
		c.mu.Lock()
		defer c.mu.Unlock()
		switch ev.Kind {
		case EventOutput:
			c.output = append(c.output, string(ev.Text))
		case EventLog:
			c.logs = append(c.logs, ev.Stream+":"+string(ev.Text))
		case EventDrop:
			c.warns = append(c.warns, ev.Reason)
		case EventResultLine:
			c.result = append(c.result, string(ev.Text))
		case EventResult:
			c.result = append(c.result, "payload: "+string(ev.Text))
		}
	}, EventOutput, EventLog, EventDrop, EventResultLine, EventResult)
}

// kindsObserver wants kinds and hands their events to f.
type kindsObserver struct {
	kinds []EventKind
	f     func(ev *Event)
}

func (o kindsObserver) Wants(k EventKind) bool { return slices.Contains(o.kinds, k) }
func (o kindsObserver) Observe(ev *Event)      { o.f(ev) }

// observe is an observer of the kinds given that hands each event to f.
func observe(f func(ev *Event), kinds ...EventKind) Observer[Event] {
	return kindsObserver{kinds, f}
}

// runRelay runs r on its own goroutine and returns a wait function.
func runRelay(ctx context.Context, r *Relay) func() (Summary, error) {
	type res struct {
		s   Summary
		err error
	}
	ch := make(chan res, 1)
	go func() { s, err := r.Run(ctx); ch <- res{s, err} }()
	return func() (Summary, error) { x := <-ch; return x.s, x.err }
}

// background runs fn on a goroutine; wait returns its error.
func background(fn func() error) (wait func() error) {
	ch := make(chan error, 1)
	go func() { ch <- fn() }()
	return func() error { return <-ch }
}

func TestRelayCallResultOutputAndResult(t *testing.T) {
	evEP, ev := newFake()
	solEP, sol := newFake()
	var c collector
	var first time.Time
	r := NewRelay(evEP, solEP, RelayConfig{Observer: c.observer(), FirstEvaluatorLine: func(at time.Time) { first = at },
		Engine: Config{ResultNonce: testNonce}})
	wait := runRelay(context.Background(), r)
	solDone := background(func() error { return echoSolution(sol) })
	evDone := background(func() error {
		defer ev.stdout.Close()
		ev.send("starting")
		ev.send(`{"type":"call","id":"1","fn":"f","args":[]}`)
		got, err := ev.recv()
		if err != nil {
			return err
		}
		if got != `{"type":"result","id":"1","value":"ok"}` {
			return errors.New("evaluator got " + got)
		}
		ev.send(testSignedMarker)
		ev.send(`{"status":"Accepted","score":10000}`)
		io.Copy(io.Discard, ev.stdin) // until the relay closes our stdin
		return nil
	})
	sum, err := wait()
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if e := evDone(); e != nil {
		t.Fatal(e)
	}
	if e := solDone(); e != nil {
		t.Fatal(e)
	}
	if string(sum.Result) != `{"status":"Accepted","score":10000}` || sum.Stats.Calls != 1 || sum.Stats.Completed != 1 {
		t.Fatalf("summary %+v", sum)
	}
	if len(c.output) != 1 || c.output[0] != "starting" || first.IsZero() || !first.Equal(sum.FirstOutput) {
		t.Fatalf("output %q first %v summary %v", c.output, first, sum.FirstOutput)
	}
	// the marker is told without its nonce, the payload line as a result
	// line and then as the result
	const payload = `{"status":"Accepted","score":10000}`
	if got, want := strings.Join(c.result, " | "), "---RESULT--- | "+payload+" | payload: "+payload; got != want {
		t.Fatalf("result events %q, want %q", got, want)
	}
}

// A solution that never reads its stdin: the relay's write of a call to it
// blocks, yet the other direction (solution → evaluator) keeps flowing, and
// after WriteStall the solution is gone and the call fails at once.
func TestRelaySolutionNeverReadsStdin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		evEP, ev := newFake()
		solEP, sol := newFake()
		r := NewRelay(evEP, solEP, RelayConfig{Engine: Config{CallTimeout: 10 * time.Second}})
		wait := runRelay(context.Background(), r)
		sol.send(ready)
		sol.send(`{"type":"capability","id":"c","name":"n","args":[]}`)
		ev.expect(t, `{"type":"capability","id":"c","name":"n","args":[]}`)
		start := time.Now()
		ev.send(`{"type":"call","id":"1","fn":"f","args":[]}`) // the relay's write to the solution blocks
		sol.send(`{"type":"log","stream":"stdout","data":"still talking"}`)
		ev.expect(t, `{"type":"log","stream":"stdout","data":"still talking"}`)
		ev.expect(t, errFrame("1", "SystemError", "solution is gone: stdin write blocked for 3s"))
		if el := time.Since(start); el != defaultWriteStall {
			t.Fatalf("gone after %v", el)
		}
		ev.stdout.Close()
		sol.stdout.Close()
		if _, err := wait(); err != nil {
			t.Fatal(err)
		}
	})
}

// An evaluator that never reads what it asked for (the result of its
// call): its own stdin stall ends the run.
func TestRelayEvaluatorNeverReadsStdin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		evEP, ev := newFake()
		solEP, sol := newFake()
		r := NewRelay(evEP, solEP, RelayConfig{})
		wait := runRelay(context.Background(), r)
		solDone := background(func() error { return echoSolution(sol) })
		ev.send(`{"type":"call","id":"1","fn":"f","args":[]}`) // its result blocks the relay's write to the evaluator
		sum, err := wait()
		if err != nil || !strings.Contains(sum.EvaluatorGone, "blocked") {
			t.Fatalf("run: %v %+v", err, sum)
		}
		ev.stdout.Close()
		solDone()
	})
}

// Issue 17, defect 2: an evaluator held up by what the solution sent it
// unasked (capabilities, logs) is not gone after WriteStall: the stall is
// the solution's doing. Deadlines toward the solution keep firing, and when
// the evaluator reads again the run goes on to its result. Before, the
// evaluator was declared gone after 3 s and the run ended without a result
// (SystemError).
func TestRelayEvaluatorHeldUpBySolutionIsNotGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		evEP, ev := newFake()
		solEP, sol := newFake()
		r := NewRelay(evEP, solEP, RelayConfig{Engine: Config{CallTimeout: 500 * time.Millisecond, ResultNonce: testNonce}})
		wait := runRelay(context.Background(), r)
		sol.send(ready)
		sol.send(`{"type":"log","stream":"stdout","data":"hi"}`) // blocks the relay's write to the evaluator
		sol.send(`{"type":"capability","id":"c","name":"n","args":[]}`)
		sol.expect(t, errFrame("c", "CallTimeout", "call timeout"))
		time.Sleep(10 * defaultWriteStall) // the evaluator is busy elsewhere for a while (a fake clock)
		for _, want := range []string{`{"type":"log","stream":"stdout","data":"hi"}`, `{"type":"capability","id":"c","name":"n","args":[]}`} {
			ev.expect(t, want)
		}
		ev.send(testSignedMarker)
		ev.send(`{"status":"WrongAnswer","score":0}`)
		sum, err := wait()
		if err != nil || sum.EvaluatorGone != "" || string(sum.Result) != `{"status":"WrongAnswer","score":0}` {
			t.Fatalf("run: %v %+v", err, sum)
		}
		ev.stdout.Close()
		sol.stdout.Close()
	})
}

// A conn knows whether an unasked frame may still be unread: not yet
// written, or within the pipe's capacity of the bytes written.
func TestConnUnaskedUnread(t *testing.T) {
	c := &conn{}
	if c.unaskedUnread() {
		t.Fatal("nothing sent, yet unasked bytes unread")
	}
	c.in, c.unaskedEnd = 110, 10 // 10 bytes holding an unasked frame, then 100 others
	for _, tc := range []struct {
		wrote int64
		slack int64
		want  bool
	}{{0, 0, true}, {5, 0, true}, {10, 0, false}, {50, 64, true}, {74, 64, false}} {
		c.out, c.slack = tc.wrote, tc.slack
		if got := c.unaskedUnread(); got != tc.want {
			t.Errorf("after writing %d with a %d-byte pipe: unread %v, want %v", tc.wrote, tc.slack, got, tc.want)
		}
	}
}

func TestRelayHugeLineAndGarbage(t *testing.T) {
	evEP, ev := newFake()
	solEP, sol := newFake()
	var c collector
	// the call waits while 100 MiB go by: under -race on a loaded machine
	// that takes longer than the default call timeout
	r := NewRelay(evEP, solEP, RelayConfig{Observer: c.observer(), Engine: Config{CallTimeout: time.Minute}})
	wait := runRelay(context.Background(), r)
	solDone := background(func() error {
		defer sol.stdout.Close()
		sol.send(ready)
		if _, err := sol.recv(); err != nil {
			return err
		}
		chunk := strings.Repeat("x", 1<<20)
		for i := 0; i < 100; i++ { // one 100 MiB line
			io.WriteString(sol.stdout, chunk)
		}
		sol.send("")
		sol.send("\x00\xff garbage {{{")
		sol.send(`{"type":"result","id":"1","value":`) // broken frame: never reaches the evaluator
		sol.send(`{"type":"result","id":"1","value":1}`)
		io.Copy(io.Discard, sol.stdin)
		return nil
	})
	ev.send(`{"type":"call","id":"1","fn":"f","args":[]}`)
	ev.send("\xfe\xfd not utf8")
	ev.expect(t, `{"type":"result","id":"1","value":1}`)
	ev.stdout.Close()
	sum, err := wait()
	if err != nil {
		t.Fatal(err)
	}
	if err := solDone(); err != nil {
		t.Fatal(err)
	}
	if sum.Stats.Dropped[DropLineTooLong] != 1 || sum.Stats.Dropped[DropSolutionText] != 2 {
		t.Fatalf("stats %+v", sum.Stats)
	}
	if len(c.output) != 1 || c.output[0] != "\xfe\xfd not utf8" {
		t.Fatalf("output %q", c.output)
	}
}

func TestRelaySolutionClosesStdoutMidCall(t *testing.T) {
	evEP, ev := newFake()
	solEP, sol := newFake()
	exited := make(chan string, 1)
	solEP.Exited = exited
	r := NewRelay(evEP, solEP, RelayConfig{Engine: Config{OnCallTimeout: Continue}})
	wait := runRelay(context.Background(), r)
	sol.send(ready)
	ev.send(`{"type":"call","id":"1","fn":"f","args":[]}`)
	sol.recv()
	exited <- "exit status 2"
	sol.stdout.Close()
	ev.expect(t, errFrame("1", "SystemError", "solution is gone: exit status 2"))
	ev.send(`{"type":"call","id":"2","fn":"f","args":[]}`)
	ev.expect(t, errFrame("2", "SystemError", "solution is gone: exit status 2"))
	ev.stdout.Close()
	if _, err := wait(); err != nil {
		t.Fatal(err)
	}
}

// A solution that exits while a call is written to it: the failed write
// names how the process ended, as the end of its stdout does, not the
// broken pipe (which would read as the judge's fault).
func TestRelaySolutionStdinGoneNamesItsExit(t *testing.T) {
	evEP, ev := newFake()
	solEP, sol := newFake()
	exited := make(chan string, 1)
	solEP.Exited = exited
	r := NewRelay(evEP, solEP, RelayConfig{Engine: Config{OnCallTimeout: Continue}})
	wait := runRelay(context.Background(), r)
	sol.send(ready)
	exited <- "exit status 3"
	sol.inR.CloseWithError(io.ErrClosedPipe) // its stdin is gone; its stdout not yet
	ev.send(`{"type":"call","id":"1","fn":"f","args":[]}`)
	ev.expect(t, errFrame("1", "SystemError", "solution is gone: exit status 3"))
	sol.stdout.Close()
	ev.stdout.Close()
	if _, err := wait(); err != nil {
		t.Fatal(err)
	}
}

func TestRelayReadyTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		evEP, ev := newFake()
		solEP, sol := newFake()
		r := NewRelay(evEP, solEP, RelayConfig{})
		start := time.Now()
		_, err := runRelay(context.Background(), r)()
		if !errors.Is(err, ErrSolutionNotReady) || time.Since(start) != defaultReadyTimeout {
			t.Fatalf("err %v after %v", err, time.Since(start))
		}
		ev.stdout.Close()
		sol.stdout.Close()
	})
}

func TestRelayRestartAfterTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		evEP, ev := newFake()
		solEP, sol := newFake()
		var restarted []*fakeSide
		var helpers []func() error
		restart := func(ctx context.Context) (Endpoint, error) {
			ep, f := newFake()
			restarted = append(restarted, f)
			helpers = append(helpers, background(func() error { return echoSolution(f) }))
			return ep, nil
		}
		r := NewRelay(evEP, solEP, RelayConfig{Restart: restart})
		wait := runRelay(context.Background(), r)
		sol.send(ready)
		ev.send(`{"type":"call","id":"hang","fn":"f","args":[],"timeout_ms":1000}`)
		sol.recv() // the first solution never answers
		ev.expect(t, errFrame("hang", "CallTimeout", "call timeout"))
		ev.send(`{"type":"call","id":"next","fn":"f","args":[]}`)
		ev.expect(t, `{"type":"result","id":"next","value":"ok"}`)
		sol.send(`{"type":"result","id":"next","value":"stale"}`) // the old process: its pipe was closed
		ev.stdout.Close()
		sum, err := wait()
		if err != nil || sum.Restarts != 1 || len(restarted) != 1 || sum.Stats.Restarts != 1 {
			t.Fatalf("run: %v %+v", err, sum)
		}
		for _, h := range helpers {
			if err := h(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func TestRelayContextCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		evEP, ev := newFake()
		solEP, sol := newFake()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := runRelay(ctx, NewRelay(evEP, solEP, RelayConfig{}))()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v", err)
		}
		ev.stdout.Close()
		sol.stdout.Close()
	})
}

func TestRelayEvaluatorStdinBroken(t *testing.T) {
	evEP, ev := newFake()
	solEP, sol := newFake()
	var traced []string
	var progress []int64
	obs := observe(func(e *Event) {
		if e.Kind == EventProgress {
			progress = append(progress, e.Stats.Completed)
		} else {
			traced = append(traced, e.Side.String()+" "+e.LineKind.String()+" "+string(e.Line))
		}
	}, EventLine, EventProgress)
	r := NewRelay(evEP, solEP, RelayConfig{Observer: obs, Engine: Config{ResultNonce: testNonce}})
	wait := runRelay(context.Background(), r)
	solDone := background(func() error { return echoSolution(sol) })
	ev.inR.Close() // the evaluator's stdin is broken: the result cannot be delivered
	ev.send(`{"type":"call","id":"1","fn":"f","args":[]}`)
	sum, err := wait()
	if err != nil || !strings.HasPrefix(sum.EvaluatorGone, "stdin write failed") {
		t.Fatalf("run: %v %+v", err, sum)
	}
	ev.stdout.Close()
	solDone()
	want := []string{"solution frame " + ready, `evaluator frame {"type":"call","id":"1","fn":"f","args":[]}`,
		`solution frame {"type":"result","id":"1","value":"ok"}`}
	slices.Sort(traced) // the solution's ready and the evaluator's call race
	slices.Sort(want)
	if strings.Join(traced, "\n") != strings.Join(want, "\n") {
		t.Fatalf("trace\n%s\nwant\n%s", strings.Join(traced, "\n"), strings.Join(want, "\n"))
	}
	if len(progress) != 1 || progress[0] != 1 {
		t.Fatalf("progress %v", progress)
	}
}

// slowStdin is a stdin whose write of "first\n" waits for release.
type slowStdin struct {
	release chan struct{}
	mu      sync.Mutex
	got     []string
}

func (w *slowStdin) Write(b []byte) (int, error) {
	if string(b) == "first\n" {
		<-w.release
	}
	w.mu.Lock()
	w.got = append(w.got, string(b))
	w.mu.Unlock()
	return len(b), nil
}

func (w *slowStdin) Close() error { return nil }

// Frames sent while a write is under way wait behind it and go out, in
// order, in the next write, by the goroutine already writing: a sender
// that must not wait (the deadlines) is not held up by a slow pipe.
func TestConnKeepsOrderBehindAWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stdin := &slowStdin{release: make(chan struct{})}
		r := &Relay{cfg: RelayConfig{QueueBytes: 1 << 20, WriteStall: time.Hour}, base: time.Now()}
		c := newConn(r, Solution, Endpoint{Stdin: stdin})
		c.send([]byte("first\n"), false) // written by the conn's goroutine, which waits in the pipe
		synctest.Wait()
		c.send([]byte("second\n"), false) // returns at once
		c.send([]byte("third\n"), false)
		close(stdin.release)
		synctest.Wait()
		r.wg.Wait()
		c.close()
		if got := strings.Join(stdin.got, "|"); got != "first\n|second\nthird\n" {
			t.Fatalf("the pipe got writes %q, want first, then second and third in one", got)
		}
	})
}

// As TestEventsComeAfterTheirFramesAreForwarded, for sides whose stdout
// the relay reads through a feed (io.Pipe here).
func TestEventsComeAfterTheirFramesAreForwardedByReaders(t *testing.T) {
	evEP, ev := newFake()
	solEP, sol := newFake()
	const call = `{"type":"call","id":"1","fn":"f","args":[]}`
	solGot := make(chan string, 1)
	go func() { line, _ := sol.recv(); solGot <- line }()
	routedReady, forwarded := make(chan struct{}), make(chan string, 1)
	obs := observe(func(e *Event) {
		if e.Side == Solution && string(e.Line) == ready {
			close(routedReady)
		}
		if e.Side == Evaluator && string(e.Line) == call {
			select {
			case line := <-solGot:
				forwarded <- line
			case <-time.After(10 * time.Second): // fails the test rather than hang it
				forwarded <- "nothing after 10 s"
			}
		}
	}, EventLine)
	wait := runRelay(context.Background(), NewRelay(evEP, solEP, RelayConfig{Observer: obs, Engine: Config{ResultNonce: testNonce}}))
	go sol.send(ready)
	<-routedReady
	go ev.send(call)
	if got := <-forwarded; got != call {
		t.Fatalf("when the observer saw the call, the solution had %q", got)
	}
	go sol.send(`{"type":"result","id":"1","value":1}`)
	ev.expect(t, `{"type":"result","id":"1","value":1}`)
	go func() {
		ev.send(testSignedMarker)
		ev.send(`{"status":"Accepted"}`)
		io.Copy(io.Discard, ev.stdin)
	}()
	go io.Copy(io.Discard, sol.stdin)
	if _, err := wait(); err != nil {
		t.Fatal(err)
	}
	ev.stdout.Close()
	sol.stdout.Close()
}
