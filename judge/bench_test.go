package judge

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/relaybench"
	"github.com/tether-dev/tether/sandbox"
)

// The relay benchmarks compare, in one run, a Go evaluator and a Go
// solution (both this test binary, built on sdk/go) talking through the
// judge against the same two programs joined by direct pipes. The timed
// loop runs inside the evaluator process; ns/call and calls/s come from it,
// so process start-up is not counted. judge-cpu-ns/frame is the judge
// process's CPU (getrusage) over the whole run divided by the frames it
// relayed (a call and its result: two per call).
func BenchmarkRelay(b *testing.B) {
	for _, inflight := range []int{1, 64} {
		b.Run(fmt.Sprintf("inflight=%d/direct", inflight), func(b *testing.B) { benchDirect(b, inflight) })
		b.Run(fmt.Sprintf("inflight=%d/judge", inflight), func(b *testing.B) { benchJudge(b, inflight) })
	}
}

// benchEnv has both sides play relaybench's parts (bench_roles_test.go).
func benchEnv(b *testing.B, inflight int) []string {
	return append([]string{"TETHER_TEST_EVAL=bench", "TETHER_TEST_SOL=bench"}, relaybench.Env(b.N, inflight)...)
}

func benchDirect(b *testing.B, inflight int) {
	exe, _ := os.Executable()
	evToSolR, evToSolW, _ := os.Pipe()
	solToEvR, solToEvW, _ := os.Pipe()
	env := append(os.Environ(), benchEnv(b, inflight)...)
	var evErr bytes.Buffer
	sol := exec.Command(exe, "tether-side", "solution")
	sol.Env, sol.Stdin, sol.Stdout = env, evToSolR, solToEvW
	ev := exec.Command(exe, "tether-side", "evaluator")
	ev.Env, ev.Stdin, ev.Stdout, ev.Stderr = env, solToEvR, evToSolW, &evErr
	if err := sol.Start(); err != nil {
		b.Fatal(err)
	}
	if err := ev.Start(); err != nil {
		b.Fatal(err)
	}
	for _, f := range []*os.File{evToSolR, evToSolW, solToEvR, solToEvW} {
		f.Close()
	}
	evDone := ev.Wait()
	sol.Process.Kill()
	sol.Wait()
	if evDone != nil {
		b.Fatalf("evaluator: %v\n%s", evDone, evErr.String())
	}
	relaybench.Report(b, evErr.String())
}

func benchJudge(b *testing.B, inflight int) {
	dir := b.TempDir()
	exe := relaybench.WriteProblem(b, dir)
	p, err := LoadProblem(dir, []string{exe})
	if err != nil {
		b.Fatal(err)
	}
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	res, err := Run(bg, p, &Submission{Code: []byte("x")}, &Options{Runner: sandbox.NewPlain(), Env: benchEnv(b, inflight), PythonPath: dir, StopGrace: time.Second})
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	if err != nil || res.Status != Accepted {
		b.Fatalf("run: %v %+v", err, res)
	}
	relaybench.Report(b, res.Output)
	cpu := time.Duration(syscall.TimevalToNsec(after.Utime) - syscall.TimevalToNsec(before.Utime) +
		syscall.TimevalToNsec(after.Stime) - syscall.TimevalToNsec(before.Stime))
	frames := 2 * (res.Calls.Count)
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(frames), "judge-cpu-ns/frame")
}
