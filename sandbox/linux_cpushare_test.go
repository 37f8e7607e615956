//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// stormCode forks n busy children that each call setsid(), which on a
// kernel with scheduler autogroups puts each in a group of its own, and
// prints "ready" once all of them run. They spin until the sandbox ends.
const stormCode = `
import os, sys
n = int(sys.argv[1])
r, w = os.pipe()
for _ in range(n):
    if os.fork() == 0:
        os.setsid()
        os.write(w, b"x")
        while True:
            pass
got = 0
while got < n:
    got += len(os.read(r, n))
print("ready", flush=True)
while True:
    pass
`

// victimCode waits for a line on stdin, then spins until it has used
// want seconds of CPU time, and prints how long that took.
const victimCode = `
import sys, time
sys.stdin.readline()
want = float(sys.argv[1])
start = time.process_time()
while time.process_time() - start < want:
    pass
print("done", flush=True)
`

// A solution that forks ~60 busy children, each in a session (so a
// scheduler autogroup) of its own, must not starve a second sandbox (the
// evaluator): each sandbox has its own CPU share, so while both compete the
// second gets about as much CPU time as the whole storm. Measured as CPU
// time of each sandbox's cgroup over the same span, not as wall time.
func TestLinuxForkStormCannotStarveAnotherSandbox(t *testing.T) {
	r := requireLinuxRunner(t)
	const children = 60
	const victimCPU = 0.5 // seconds
	victim, err := r.Start(context.Background(), Spec{Args: append(pyArgs(victimCode), strconv.FormatFloat(victimCPU, 'f', -1, 64))})
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close()
	storm, err := r.Start(context.Background(), Spec{
		Args: append(pyArgs(stormCode), strconv.Itoa(children)),
		// The bound of the test without per-sandbox shares: the storm
		// then runs until this limit kills it.
		Limits: Limits{CPUTime: 20 * time.Second, Pids: 2 * children},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer storm.Close()
	go io.Copy(io.Discard, storm.Stderr())
	go io.Copy(io.Discard, victim.Stderr())
	line, err := bufio.NewReader(storm.Stdout()).ReadString('\n')
	if line != "ready\n" {
		t.Fatalf("storm did not start its children: %q %v", line, err)
	}
	stormCG := storm.(*linuxProcess).cg
	before, err := stormCG.cpuUsage()
	if err != nil {
		t.Fatal(err)
	}
	victimCG := victim.(*linuxProcess).cg
	victimBefore, err := victimCG.cpuUsage()
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(victim.Stdin(), "go\n")
	out, _ := io.ReadAll(victim.Stdout())
	if string(out) != "done\n" {
		t.Fatalf("victim: %q", out)
	}
	after, err := stormCG.cpuUsage()
	if err != nil {
		t.Fatal(err)
	}
	victimAfter, err := victimCG.cpuUsage()
	if err != nil {
		t.Fatal(err)
	}
	storm.Kill()
	stormUsed, victimUsed := after-before, victimAfter-victimBefore
	t.Logf("while the victim used %v of CPU, the storm of %d sessions used %v", victimUsed, children, stormUsed)
	// Equal shares give a ratio near 1 (the victim, one thread, may get
	// less on a machine with more CPUs than sandboxes); one autogroup per
	// child gives about 1/60.
	if float64(victimUsed) < 0.3*float64(stormUsed) {
		t.Errorf("victim got %v of CPU while the storm got %v: the storm starved it", victimUsed, stormUsed)
	}
}

// Every sandbox's cgroup has the cpu controller with the default weight,
// so that sandboxes share the CPU equally whatever they run.
func TestLinuxSandboxHasCPUWeight(t *testing.T) {
	r := requireLinuxRunner(t)
	p := startIdle(t, r)
	cg := p.cg
	file, want := "cpu.shares", "1024"
	if cg.v2 {
		file, want = "cpu.weight", "100"
	}
	data, err := os.ReadFile(filepath.Join(cg.cpuDir, file))
	if err != nil || strings.TrimSpace(string(data)) != want {
		t.Fatalf("%s = %q %v, want %s", file, data, err, want)
	}
	p.Stdin().Close()
	p.Wait()
}
