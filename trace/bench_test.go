package trace

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tether-dev/tether/dual"
	"github.com/tether-dev/tether/internal/relaybench"
	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/sandbox"
	"github.com/tether-dev/tether/sdk/go/solution"
)

// BenchmarkRelayTrace relays calls between a Go evaluator and a Go
// solution (this test binary) through judge.Run, interleaved in one run:
// with no trace (off), with the floor (floor: the simplest trace, every
// line copied as it is into the file from the relay's goroutine, nothing
// else) and with the trace (on): the trace's cost on the relay, and what
// recording each line costs at the least. ns/call is timed inside the
// evaluator; judge-cpu-ns/call is this process's CPU time (the relay's,
// and the trace writer's) per call.
func BenchmarkRelayTrace(b *testing.B) {
	for _, inflight := range []int{1, 64} {
		for _, trace := range []string{"off", "floor", "on"} {
			name := fmt.Sprintf("inflight=%d/trace=%s", inflight, trace)
			b.Run(name, func(b *testing.B) { benchRelay(b, inflight, trace) })
		}
	}
}

func benchRelay(b *testing.B, inflight int, trace string) {
	dir := b.TempDir()
	exe := relaybench.WriteProblem(b, dir)
	p, err := judge.LoadProblem(dir, []string{exe})
	if err != nil {
		b.Fatal(err)
	}
	sub := &judge.Submission{Path: "main.py", Code: []byte("x")}
	opts := &judge.Options{Runner: sandbox.NewPlain(), PythonPath: dir, StopGrace: time.Second,
		Env: relaybench.Env(b.N, inflight)}
	var closer interface{ Close() error }
	if trace != "off" {
		f, err := os.Create(filepath.Join(dir, "run.trace"))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if trace == "floor" {
			c := &lineCopier{w: bufio.NewWriterSize(f, writeAt)}
			opts.Observer, closer = c, c
		} else {
			w := NewWriter(f, HeaderFor(p, sub, "bench", "none"), 0)
			opts.Observer, closer = w, w
		}
	}
	cpu := processCPU()
	res, err := judge.Run(context.Background(), p, sub, opts)
	if closer != nil {
		if err := closer.Close(); err != nil {
			b.Fatal(err)
		}
	}
	if err != nil || res.Status != judge.Accepted {
		b.Fatalf("run: %v %+v", err, res)
	}
	relaybench.Report(b, res.Output)
	b.ReportMetric(float64(processCPU()-cpu)*1000/float64(b.N), "judge-cpu-ns/call")
}

// lineCopier is the floor of a trace: it copies every line a side wrote
// into the file as it is, on the relay's goroutine, and records nothing
// else.
type lineCopier struct{ w *bufio.Writer }

func (c *lineCopier) Wants(k judge.EventKind) bool { return k == judge.EventLine }

func (c *lineCopier) Observe(ev *judge.Event) {
	c.w.Write(ev.Line)
	c.w.WriteByte('\n')
}

func (c *lineCopier) Close() error { return c.w.Flush() }

func playSide(which string) int {
	if which == "solution" {
		return relaybench.Solution(solution.New(os.Stdin, os.Stdout, nil))
	}
	return relaybench.Evaluator()
}

// oneCall is what the relay tells a trace about one call: its line, its
// opening, its answer's line and its closing.
func oneCall() []judge.Event {
	call := []byte(`{"type":"call","id":"3f2a9c7e5b1d4e6f8a0b2c4d6e8f0a1b","fn":"add","args":[123,1]}`)
	res := []byte(`{"type":"result","id":"3f2a9c7e5b1d4e6f8a0b2c4d6e8f0a1b","value":124}`)
	id, fn := call[21:53], []byte("add")
	now := time.Now()
	return []judge.Event{
		{Event: dual.Event{Kind: judge.EventLine, At: now, Side: dual.Evaluator, LineKind: dual.Framed, Line: call, Length: int64(len(call))}},
		{Event: dual.Event{Kind: judge.EventCallOpened, At: now, Side: dual.Evaluator, ID: id, Name: fn}},
		{Event: dual.Event{Kind: judge.EventLine, At: now, Side: dual.Solution, LineKind: dual.Framed, Line: res, Length: int64(len(res))}},
		{Event: dual.Event{Kind: judge.EventCallClosed, At: now, Side: dual.Evaluator, ID: id, Name: fn, Took: time.Millisecond}},
	}
}

// BenchmarkWriterPerCall is the trace's own cost for one call, without
// the processes' scheduling noise: ns/op is what Observe costs the relay's
// goroutine; cpu-ns/call is all the CPU the writer spends (and the file
// writer's, here writing to io.Discard).
func BenchmarkWriterPerCall(b *testing.B) {
	w := NewWriter(io.Discard, Header{}, 1<<40)
	evs := oneCall()
	b.ReportAllocs()
	cpu := processCPU()
	for b.Loop() {
		for i := range evs {
			w.Observe(&evs[i])
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(processCPU()-cpu)*1000/float64(b.N), "cpu-ns/call")
}
