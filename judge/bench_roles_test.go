package judge

import (
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"sync"
	"time"

	"github.com/tether-dev/tether/sdk/go/evaluator"
)

func init() {
	evaluatorRoles["bench"] = benchEvaluator
	solutionRoles["bench"] = func() int { defer profile("solution")(); return serve(host()) }
}

// benchEvaluator makes TETHER_BENCH_N calls of add(i, 1), TETHER_BENCH_INFLIGHT
// at a time, and writes "BENCH <ns>" for the timed loop to stderr.
func benchEvaluator() int {
	n, _ := strconv.Atoi(os.Getenv("TETHER_BENCH_N"))
	inflight, _ := strconv.Atoi(os.Getenv("TETHER_BENCH_INFLIGHT"))
	defer profile("evaluator")()
	r := evaluator.Default()
	calls := func(count, workers int) error {
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		next := make(chan int, workers)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					if v, err := r.Call(bg, "add", i, 1); err != nil || v != int64(i+1) {
						errs <- fmt.Errorf("add(%d, 1) = %v, %v", i, v, err)
						return
					}
				}
			}()
		}
		for i := range count {
			next <- i
		}
		close(next)
		wg.Wait()
		close(errs)
		return <-errs
	}
	if err := calls(200, inflight); err != nil { // warm-up
		r.SystemError(err.Error())
		return 0
	}
	start := time.Now()
	if err := calls(n, inflight); err != nil {
		r.SystemError(err.Error())
		return 0
	}
	fmt.Fprintf(os.Stderr, "BENCH %d\n", time.Since(start).Nanoseconds())
	r.Accept(100, nil)
	return 0
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
