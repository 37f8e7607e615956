package worker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/sandbox"
	"github.com/tether-dev/tether/sdk/go/evaluator"
	"github.com/tether-dev/tether/sdk/go/solution"
)

// BenchmarkRunObserver is what the run observer (the worker's metrics from
// a run's events) costs a run: one run of b.N calls between a Go evaluator
// and a Go solution (this test binary: TestHelperProcess), judged without
// and with it. judge-cpu-ns/call is this process's CPU over the run (the
// judge's: the sides are other processes) per call. Alternate the two
// by running each in turn (one -count runs one variant count times):
//
//	go test -c -o worker.test ./worker && cd worker && for i in 1 2 3 4 5 6 7; do for v in without with; do
//	  ../worker.test -test.run '^$' -test.bench "RunObserver/$v\$" -test.benchtime 20000x; done; done
func BenchmarkRunObserver(b *testing.B) {
	b.Run("without", func(b *testing.B) { benchRun(b, nil) })
	b.Run("with", func(b *testing.B) { benchRun(b, NewMetrics(1)) })
}

func benchRun(b *testing.B, m *Metrics) {
	exe, _ := os.Executable()
	dir := b.TempDir()
	side := func(name string) string { return fmt.Sprintf(`[%q,"-test.run=^TestHelperProcess$",%q]`, exe, name) }
	problem := fmt.Sprintf(`{"runtime_config":{"evaluator":{"command":%s,"time_limit_ms":600000},
		"solution":{"command":%s,"call_timeout_ms":60000}}}`, side("evaluator"), side("solution"))
	if err := os.WriteFile(filepath.Join(dir, "problem.json"), []byte(problem), 0o644); err != nil {
		b.Fatal(err)
	}
	p, err := judge.LoadProblem(dir, []string{exe})
	if err != nil {
		b.Fatal(err)
	}
	opts := &judge.Options{Runner: sandbox.NewPlain(), Env: []string{"TETHER_WORKER_HELPER=bench-side", "TETHER_BENCH_CALLS=" + strconv.Itoa(b.N)},
		PythonPath: dir, StopGrace: time.Second}
	counts := m.runObserver()
	if counts != nil {
		opts.Observer = counts
	}
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	start := time.Now()
	res, err := judge.Run(context.Background(), p, &judge.Submission{Code: []byte("x")}, opts)
	wall := time.Since(start)
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	if err != nil || res.Status != judge.Accepted || res.Calls.Count != b.N {
		b.Fatalf("run: %v %+v", err, res)
	}
	if counts != nil {
		counts.add()
		if got := counts.calls[0]; got != int64(b.N) {
			b.Fatalf("counted %d answered calls of %d", got, b.N)
		}
	}
	cpu := syscall.TimevalToNsec(after.Utime) - syscall.TimevalToNsec(before.Utime) +
		syscall.TimevalToNsec(after.Stime) - syscall.TimevalToNsec(before.Stime)
	b.ReportMetric(float64(cpu)/float64(b.N), "judge-cpu-ns/call")
	b.ReportMetric(float64(wall.Nanoseconds())/float64(b.N), "wall-ns/call")
}

// BenchmarkRunObserverPerCall is the observer's own work for one call: its
// closing event counted.
func BenchmarkRunObserverPerCall(b *testing.B) {
	counts := NewMetrics(1).runObserver()
	ev := judge.Event{}
	ev.Kind = judge.EventCallClosed
	for b.Loop() {
		counts.Observe(&ev)
	}
}

// playSide is this test binary as a side of BenchmarkRunObserver's run
// (TestHelperProcess, evaluator or solution): the evaluator calls
// add(i, 1) TETHER_BENCH_CALLS times, one at a time; the solution answers.
func playSide(side string) int {
	switch side {
	case "evaluator":
		n, _ := strconv.Atoi(os.Getenv("TETHER_BENCH_CALLS"))
		r := evaluator.Default()
		for i := range n {
			if v, err := r.Call(context.Background(), "add", i, 1); err != nil || v != int64(i+1) {
				r.SystemError(fmt.Sprintf("add(%d, 1) = %v, %v", i, v, err))
				return 0
			}
		}
		r.Accept(100, nil)
		return 0
	case "solution":
		solution.Register("add", func(_ context.Context, args []any) (any, error) {
			return args[0].(int64) + args[1].(int64), nil
		})
		if solution.Serve() != nil {
			return 1
		}
		return 0
	}
	return 2
}
