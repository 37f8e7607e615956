package dual

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/codec"
)

// sidePipes is one side's two OS pipes: the relay's ends in ep, the
// process's ends in stdin (it reads) and stdout (it writes).
type sidePipes struct {
	ep     Endpoint
	stdin  *os.File
	stdout *os.File
}

func newSidePipes(t *testing.T) sidePipes {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, f := range []*os.File{inR, inW, outR, outW} {
			f.Close()
		}
	})
	return sidePipes{Endpoint{Stdin: inW, Stdout: outR}, inR, outW}
}

// expectResults reads calls result frames from the evaluator's stdin,
// `{"type":"result","id":"cI","value":I}` in order, and reports the first
// that is not as expected (nil when all are).
func expectResults(stdin *os.File, calls int) <-chan error {
	done := make(chan error, 1)
	go func() {
		rd := bufio.NewReader(stdin)
		for i := 0; i < calls; i++ {
			line, err := rd.ReadString('\n')
			if want := fmt.Sprintf(`{"type":"result","id":"c%d","value":%d}`+"\n", i, i); err != nil || line != want {
				done <- fmt.Errorf("result %d: %q, %v", i, line, err)
				return
			}
		}
		done <- nil
	}()
	return done
}

// acceptAndWait has the evaluator write a plain result and close its
// stdout, and checks that the run ends cleanly with that result and calls
// calls completed.
func acceptAndWait(t *testing.T, ev sidePipes, wait func() (Summary, error), calls int64) {
	t.Helper()
	fmt.Fprintln(ev.stdout, codec.ResultMarker)
	fmt.Fprintln(ev.stdout, `{"status":"Accepted"}`)
	ev.stdout.Close()
	sum, err := wait()
	if err != nil || sum.Stats.Completed != calls {
		t.Fatalf("run: %v, %d of %d calls completed", err, sum.Stats.Completed, calls)
	}
	if string(sum.Result) != `{"status":"Accepted"}` || !sum.ResultPlain {
		t.Fatalf("result %q (plain %v), want the plain result", sum.Result, sum.ResultPlain)
	}
}

// A solution that does not read its stdin while the evaluator floods it
// with calls: the relay stops reading the evaluator once the solution's
// queue is full, so the evaluator's writes block instead of the relay's
// memory growing; when the solution reads again, every call arrives, in
// order, and every result goes back.
func TestBackPressureLosesNothing(t *testing.T) {
	ev, sol := newSidePipes(t), newSidePipes(t)
	const limit = 64 << 10
	relay := NewRelay(ev.ep, sol.ep, RelayConfig{QueueBytes: limit, WriteStall: time.Minute,
		Engine: Config{MaxInFlight: 1 << 20}})
	wait := runRelay(context.Background(), relay)
	fmt.Fprintln(sol.stdout, ready)

	const calls = 4000
	arg := strings.Repeat("x", 1000)
	call := func(i int) string {
		return fmt.Sprintf(`{"type":"call","id":"c%d","fn":"f","args":["%s"]}`+"\n", i, arg)
	}
	var written atomic.Int64
	evWrote := make(chan error, 1)
	go func() {
		for i := 0; i < calls; i++ {
			n, err := ev.stdout.WriteString(call(i))
			written.Add(int64(n))
			if err != nil {
				evWrote <- err
				return
			}
		}
		evWrote <- nil
	}()
	// Wait for the evaluator's writes to stop: it is blocked on a full pipe.
	last := int64(-1)
	for written.Load() != last {
		last = written.Load()
		time.Sleep(100 * time.Millisecond) // polling a condition (the writes stopped), not synchronising
	}
	// Its stdout pipe, the reader's buffer and the frames it routed from
	// one read, the limit pending for the solution's stdin, one batch
	// being written (the limit and one read's frames) and the solution's
	// stdin pipe: nothing more.
	const pipe = 64 << 10
	if bound := int64(2*limit + 2*pipe + 2*maxKept + len(call(0))); last > bound {
		t.Fatalf("the evaluator wrote %d bytes into a solution that reads nothing; back-pressure should stop it by %d", last, bound)
	}
	if last == int64(calls*len(call(0))) {
		t.Fatal("every call was written: the test did not fill the pipes")
	}

	results := expectResults(ev.stdin, calls)
	rd := bufio.NewReaderSize(sol.stdin, 1<<16)
	for i := 0; i < calls; i++ {
		line, err := rd.ReadString('\n')
		if err != nil || line != call(i) {
			t.Fatalf("call %d: got %.60q, %v", i, line, err)
		}
		fmt.Fprintf(sol.stdout, `{"type":"result","id":"c%d","value":%d}`+"\n", i, i)
	}
	if err := <-evWrote; err != nil {
		t.Fatal(err)
	}
	if err := <-results; err != nil {
		t.Fatal(err)
	}
	acceptAndWait(t, ev, wait, calls)
}

// A run cancelled while its readers wait for input ends at once: Run
// closes the pipes, which ends the reads.
func TestRunCancelledWhileIdle(t *testing.T) {
	ev, sol := newSidePipes(t), newSidePipes(t)
	ctx, cancel := context.WithCancel(context.Background())
	wait := runRelay(ctx, NewRelay(ev.ep, sol.ep, RelayConfig{}))
	fmt.Fprintln(sol.stdout, ready)
	cancel()
	if _, err := wait(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want context.Canceled", err)
	}
	if _, err := ev.stdout.WriteString("late\n"); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("writing to the evaluator's stdout after the run: %v, want EPIPE (the relay closed its end)", err)
	}
}

// The relay tells its events after it has forwarded the lines they report:
// an observer that takes its time (a trace being written) does not hold up
// the frame. Here the observer, told the evaluator's call, reads that call
// from the solution's stdin; it is there already.
func TestEventsComeAfterTheirFramesAreForwarded(t *testing.T) {
	ev, sol := newSidePipes(t), newSidePipes(t)
	solIn, evIn := bufio.NewReader(sol.stdin), bufio.NewReader(ev.stdin)
	const call = `{"type":"call","id":"c0","fn":"f","args":[]}`
	routedReady, forwarded := make(chan struct{}), make(chan string, 1)
	obs := observe(func(e *Event) {
		if e.Side == Solution && string(e.Line) == ready {
			close(routedReady) // a call now goes straight to the solution
		}
		if e.Side == Evaluator && string(e.Line) == call {
			sol.stdin.SetReadDeadline(time.Now().Add(10 * time.Second)) // fails the test rather than hang it
			line, err := solIn.ReadString('\n')
			forwarded <- fmt.Sprintf("%q %v", line, err)
		}
	}, EventLine)
	wait := runRelay(context.Background(), NewRelay(ev.ep, sol.ep, RelayConfig{Observer: obs, Engine: Config{ResultNonce: testNonce}}))
	fmt.Fprintln(sol.stdout, ready)
	<-routedReady
	fmt.Fprintln(ev.stdout, call)
	if got, want := <-forwarded, fmt.Sprintf("%q <nil>", call+"\n"); got != want {
		t.Fatalf("when the observer saw the call, the solution's stdin gave %s, want %s", got, want)
	}
	fmt.Fprintln(sol.stdout, `{"type":"result","id":"c0","value":1}`)
	if line, err := evIn.ReadString('\n'); err != nil || line != `{"type":"result","id":"c0","value":1}`+"\n" {
		t.Fatalf("evaluator got %q, %v", line, err)
	}
	fmt.Fprintln(ev.stdout, testSignedMarker+"\n{\"status\":\"Accepted\"}")
	if _, err := wait(); err != nil {
		t.Fatal(err)
	}
}
