// Package relaybench is the Go evaluator and solution that the relay
// benchmarks of judge and trace run through the judge (both sides are the
// benchmark's own test binary), and what reads their result.
//
// The evaluator makes TETHER_BENCH_N calls of add(i, 1),
// TETHER_BENCH_INFLIGHT at a time, after a warm-up, and writes
// "BENCH <ns>" for the timed loop to stderr, which ends the run's Output.
// The solution serves add.
package relaybench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tether-dev/tether/sdk/go/evaluator"
	"github.com/tether-dev/tether/sdk/go/solution"
)

// Env is the environment that tells both sides what to run: n calls,
// inflight at a time, and TETHER_BENCH_PROF passed on when it is set.
func Env(n, inflight int) []string {
	env := []string{fmt.Sprintf("TETHER_BENCH_N=%d", n), fmt.Sprintf("TETHER_BENCH_INFLIGHT=%d", inflight)}
	if prof := os.Getenv("TETHER_BENCH_PROF"); prof != "" {
		env = append(env, "TETHER_BENCH_PROF="+prof)
	}
	return env
}

// WriteProblem writes dir/problem.json, whose evaluator and solution are
// the running test binary started as `<binary> tether-side evaluator` and
// `... solution`, and returns the binary's path (allow it as a command).
func WriteProblem(b *testing.B, dir string) string {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	problem := fmt.Sprintf(`{"title":"bench","runtime_config":{
		  "evaluator":{"command":[%q,"tether-side","evaluator"],"time_limit_ms":600000},
		  "solution":{"command":[%q,"tether-side","solution"],"call_timeout_ms":60000}}}`, exe, exe)
	if err := os.WriteFile(filepath.Join(dir, "problem.json"), []byte(problem), 0o644); err != nil {
		b.Fatal(err)
	}
	return exe
}

// Report reads the evaluator's BENCH line in output and reports ns/call
// and calls/s.
func Report(b *testing.B, output string) {
	b.Helper()
	i := strings.Index(output, "BENCH ")
	if i < 0 {
		b.Fatalf("no BENCH line in %q", output)
	}
	var ns int64
	fmt.Sscan(output[i+len("BENCH "):], &ns)
	b.ReportMetric(float64(ns)/float64(b.N), "ns/call")
	b.ReportMetric(float64(b.N)/(float64(ns)/1e9), "calls/s")
}

// Evaluator is the evaluator side, over the process's stdin and stdout.
func Evaluator() int {
	n, _ := strconv.Atoi(os.Getenv("TETHER_BENCH_N"))
	inflight, _ := strconv.Atoi(os.Getenv("TETHER_BENCH_INFLIGHT"))
	defer profile("evaluator")()
	r := evaluator.Default()
	calls := func(count int) error {
		var wg sync.WaitGroup
		errs := make(chan error, inflight)
		next := make(chan int, inflight)
		for range inflight {
			wg.Go(func() {
				for i := range next {
					if v, err := r.Call(context.Background(), "add", i, 1); err != nil || v != int64(i+1) {
						errs <- fmt.Errorf("add(%d, 1) = %v, %v", i, v, err)
						return
					}
				}
			})
		}
		for i := range count {
			next <- i
		}
		close(next)
		wg.Wait()
		close(errs)
		return <-errs
	}
	if err := calls(200); err != nil { // warm-up
		r.SystemError(err.Error())
		return 0
	}
	start := time.Now()
	if err := calls(n); err != nil {
		r.SystemError(err.Error())
		return 0
	}
	fmt.Fprintf(os.Stderr, "BENCH %d\n", time.Since(start).Nanoseconds())
	r.Accept(100, nil)
	return 0
}

// Solution is the solution side: h serves add until its input ends.
func Solution(h *solution.Host) int {
	defer profile("solution")()
	h.Register("add", Add)
	if err := h.Serve(context.Background()); err != nil {
		return 1
	}
	return 0
}

// Add is the solution's add(a, b) of two integers.
func Add(_ context.Context, args []any) (any, error) {
	if len(args) != 2 {
		return nil, errors.New("want two arguments")
	}
	return args[0].(int64) + args[1].(int64), nil
}

// profile writes a CPU profile of this side to $TETHER_BENCH_PROF.<side>
// when that variable is set (for finding the SDKs' hot paths).
func profile(side string) func() {
	path := os.Getenv("TETHER_BENCH_PROF")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path + "." + side)
	if err != nil {
		return func() {}
	}
	pprof.StartCPUProfile(f)
	return func() { pprof.StopCPUProfile(); f.Close() }
}
