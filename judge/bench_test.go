package judge

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

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

func benchEnv(b *testing.B, inflight int) []string {
	env := []string{"TETHER_TEST_EVAL=bench", "TETHER_TEST_SOL=bench",
		fmt.Sprintf("TETHER_BENCH_N=%d", b.N), fmt.Sprintf("TETHER_BENCH_INFLIGHT=%d", inflight)}
	if prof := os.Getenv("TETHER_BENCH_PROF"); prof != "" {
		env = append(env, "TETHER_BENCH_PROF="+prof)
	}
	return env
}

func reportBench(b *testing.B, stderr string) {
	b.Helper()
	i := strings.Index(stderr, "BENCH ")
	if i < 0 {
		b.Fatalf("no BENCH line in %q", stderr)
	}
	var ns int64
	fmt.Sscan(stderr[i+len("BENCH "):], &ns)
	b.ReportMetric(float64(ns)/float64(b.N), "ns/call")
	b.ReportMetric(float64(b.N)/(float64(ns)/1e9), "calls/s")
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
	reportBench(b, evErr.String())
}

func benchJudge(b *testing.B, inflight int) {
	exe, _ := os.Executable()
	dir := b.TempDir()
	os.WriteFile(dir+"/problem.json", []byte(fmt.Sprintf(
		`{"runtime_config":{"evaluator":{"command":[%q,"tether-side","evaluator"],"time_limit_ms":600000},
		  "solution":{"command":[%q,"tether-side","solution"],"call_timeout_ms":60000}}}`, exe, exe)), 0o644)
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
	reportBench(b, res.Output)
	cpu := time.Duration(syscall.TimevalToNsec(after.Utime) - syscall.TimevalToNsec(before.Utime) +
		syscall.TimevalToNsec(after.Stime) - syscall.TimevalToNsec(before.Stime))
	frames := 2 * (res.Calls.Count)
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(frames), "judge-cpu-ns/frame")
}
