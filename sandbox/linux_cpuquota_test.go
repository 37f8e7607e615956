//go:build linux

package sandbox

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// spinCode spins two processes for the given seconds of wall time each.
const spinCode = `
import os, sys, time
end = time.monotonic() + float(sys.argv[1])
pid = os.fork()
while time.monotonic() < end:
    pass
if pid:
    os.waitpid(pid, 0)
`

// Limits.CPUMillicores is a quota on the whole sandbox, not a pin: the
// cgroup holds it (cpu.max or cpu.cfs_quota_us), and two processes that
// spin for a second of wall time together get about a tenth of a CPU-second
// under 100 millicores, where they would get up to two without it.
func TestLinuxCPUMillicoresIsAQuota(t *testing.T) {
	r := requireLinuxRunner(t)
	const wall = 1.0 // seconds
	p, err := r.Start(context.Background(), Spec{Args: append(pyArgs(spinCode), "1.0"),
		Limits: Limits{CPUMillicores: 100}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	cg := p.(*linuxProcess).cg
	var quota string
	if cg.v2 {
		b, _ := os.ReadFile(filepath.Join(cg.cpuDir, "cpu.max"))
		quota = strings.TrimSpace(string(b))
	} else {
		q, _ := os.ReadFile(filepath.Join(cg.cpuDir, "cpu.cfs_quota_us"))
		per, _ := os.ReadFile(filepath.Join(cg.cpuDir, "cpu.cfs_period_us"))
		quota = strings.TrimSpace(string(q)) + " " + strings.TrimSpace(string(per))
	}
	if quota != "10000 100000" {
		t.Errorf("the sandbox's cgroup quota is %q, want 10000 100000 (100 millicores)", quota)
	}
	go io.Copy(io.Discard, p.Stdout())
	go io.Copy(io.Discard, p.Stderr())
	p.Stdin().Close()
	u, err := p.Wait()
	if err != nil || u.ExitCode != 0 {
		t.Fatalf("exit %d: %v", u.ExitCode, err)
	}
	// A tenth of the wall time, plus a period of slack at each end.
	if limit := time.Duration(wall*0.1*float64(time.Second)) + 200*time.Millisecond; u.CPU > limit {
		t.Fatalf("the sandbox used %v of CPU in %v of wall time under 100 millicores, want at most %v", u.CPU, u.Wall, limit)
	}

	if _, err := r.Start(context.Background(), Spec{Args: []string{"true"}, Limits: Limits{CPUMillicores: MinCPUMillicores - 1}}); err == nil ||
		!strings.Contains(err.Error(), "millicores") {
		t.Fatalf("a cap below the kernel's smallest quota started: %v", err)
	}
}
