//go:build linux

package sandbox

import (
	"context"
	"io"
	"testing"
	"time"
)

// BenchmarkStart measures one whole sandbox life — Start, EOF on stdin,
// drain stdout, Wait, Close — of the same program through the "none"
// runner (a plain exec in its own process group) and the "linux" runner
// (a new network namespace per start). "linux" starts cold: each start
// prepares its own start thread and cgroup; "linux-warm" takes one that
// the runner prepared in the background (WarmStarts: 2; see linux_warm.go),
// whose preparation is not in the measured time. "python3" is the interpreter
// behind the judge's PATH entry in both runners (logged below): neither
// runs a pyenv shim. python3-via-shim/none is what the plain runner paid
// per start before it resolved the shim once.
//
// go test -run '^$' -bench BenchmarkStart -benchtime 20x -benchmem ./sandbox
func BenchmarkStart(b *testing.B) {
	runners := startRunners(b)
	py := sharedHostPython()
	b.Logf("python3 = %s (PATH gives %s)", py.executable, py.onPath["python3"])
	for _, prog := range startPrograms {
		for _, r := range runners {
			b.Run(prog.name+"/"+r.name, func(b *testing.B) { benchLife(b, r.r, prog.args) })
		}
	}
	b.Run("python3-via-shim/none", func(b *testing.B) {
		benchLife(b, NewPlain(), []string{py.onPath["python3"], "-c", "pass"})
	})
}

// startPrograms are what the start benchmarks start.
var startPrograms = []struct {
	name string
	args []string
}{
	{"true", []string{"true"}},
	{"python3-c-pass", []string{"python3", "-c", "pass"}},
}

type namedRunner struct {
	name string
	r    Runner
}

// startRunners are the runners the start benchmarks compare: plain
// processes, the linux runner starting cold, and one with prepared starts.
// Both linux runners are closed when b ends.
func startRunners(b *testing.B) []namedRunner {
	linux := requireLinuxRunner(b)
	warm := requireLinuxRunnerWith(b, &LinuxOptions{WarmStarts: DefaultWarmStarts})
	return []namedRunner{{"none", NewPlain()}, {"linux", linux}, {"linux-warm", warm}}
}

// BenchmarkStartSpaced is BenchmarkStart with the machine left idle for
// 20 ms before each life (not measured), and the life split into its
// phases (start-ms: Start; run-ms: until Wait returns; close-ms: Close),
// as a judge starts its sandboxes:
// one run at a time, not in a tight loop. On cgroup v1 that is what a cold
// start pays for: the move into a new cgroup waits for an RCU grace period,
// which back-to-back starts mostly share (see cgroupEntry).
//
// go test -run '^$' -bench BenchmarkStartSpaced -benchtime 20x ./sandbox
func BenchmarkStartSpaced(b *testing.B) {
	runners := startRunners(b)
	for _, prog := range startPrograms {
		for _, r := range runners {
			b.Run(prog.name+"/"+r.name, func(b *testing.B) {
				var start, run, close time.Duration
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					time.Sleep(20 * time.Millisecond)
					b.StartTimer()
					s, r, c := life(b, r.r, prog.args)
					start, run, close = start+s, run+r, close+c
				}
				n := float64(b.N) * float64(time.Millisecond)
				b.ReportMetric(float64(start)/n, "start-ms")
				b.ReportMetric(float64(run)/n, "run-ms")
				b.ReportMetric(float64(close)/n, "close-ms")
			})
		}
	}
}

func benchLife(b *testing.B, r Runner, args []string) {
	for b.Loop() {
		life(b, r, args)
	}
}

// life runs one whole life of args and reports how long its phases took:
// Start, from Start's return to Wait's (the program runs), and Close.
func life(b *testing.B, r Runner, args []string) (start, run, close time.Duration) {
	t0 := time.Now()
	p, err := r.Start(context.Background(), Spec{Args: args})
	if err != nil {
		b.Fatal(err)
	}
	t1 := time.Now()
	p.Stdin().Close()
	io.Copy(io.Discard, p.Stdout())
	u, err := p.Wait()
	if err != nil || u.ExitCode != 0 {
		b.Fatalf("%v: usage %+v, err %v", args, u, err)
	}
	t2 := time.Now()
	p.Close()
	return t1.Sub(t0), t2.Sub(t1), time.Since(t2)
}
