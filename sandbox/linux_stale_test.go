//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const orphanHelperEnv = "TETHER_SANDBOX_ORPHAN_HELPER"

// The test binary, re-executed with orphanHelperEnv set, plays a judge that
// starts a sandbox, reports what it made (the sandbox and the cgroups of
// its prepared start threads), and waits to be killed with -9.
func init() {
	if os.Getenv(orphanHelperEnv) != "1" {
		return
	}
	r, err := NewLinux(&LinuxOptions{WarmStarts: 2})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	// The runner prepares two threads when it is made; the start takes one
	// (a warm start does not refill), so one stays prepared.
	if _, err := waitWarm(r.warm, 2); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	proc, err := r.Start(context.Background(), Spec{Args: []string{"sleep", "600"}})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	p := proc.(*linuxProcess)
	made := append([]string{p.dir.base}, p.cg.dirs...)
	warm, err := waitWarm(r.warm, 1)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	for _, t := range warm {
		made = append(made, t.cg.dirs...)
	}
	if !p.cg.v2 { // the judge's own group in the cpu hierarchy (judgeCPUGroup)
		made = append(made, filepath.Dir(p.cg.cpuDir))
	}
	fmt.Println(p.pid, strings.Join(made, " "))
	select {}
}

func TestLinuxCleansUpAfterKilledJudge(t *testing.T) {
	requireLinuxRunner(t)
	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(), orphanHelperEnv+"=1")
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	helper.Process.Signal(syscall.SIGKILL)
	helper.Wait()
	if err != nil || strings.HasPrefix(line, "error") {
		t.Fatalf("helper: %q %v", line, err)
	}
	fields := strings.Fields(line)
	var sandboxPid int
	fmt.Sscan(fields[0], &sandboxPid)
	left := fields[1:]
	for _, d := range left {
		if _, err := os.Stat(d); err != nil {
			t.Fatalf("the killed judge should have left %s: %v", d, err)
		}
	}
	// The judge's death closed the lifeline: the placeholder read EOF and
	// exited, and the kernel killed the rest of its PID namespace, with no
	// help from another judge. (The orphans are reparented to the host's
	// init, which reaps them.)
	deadline := time.Now().Add(5 * time.Second)
	for processRuns(sandboxPid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if processRuns(sandboxPid) {
		st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", sandboxPid))
		t.Errorf("sandbox process %d outlived its judge by 5 s: %s", sandboxPid, st)
	}

	next, err := NewLinux(nil) // the next judge removes the rest
	if err != nil {
		t.Fatal(err)
	}
	next.Close()
	for _, d := range left {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("still there after the next start: %s (%v)", d, err)
		}
	}
}

// processRuns: pid exists and is not a zombie.
func processRuns(pid int) bool {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(st), ") Z ")
}

// A dead judge's cgroup that is empty but cannot be removed is set aside
// under a name no judge claims, and the cleanup goes on: one such leftover
// must not stop every later runner (under --sandbox auto that would mean
// running without a sandbox).
func TestStaleCgroupThatCannotBeRemovedIsSetAside(t *testing.T) {
	parent := t.TempDir()
	dead := "1-1-1" // pid 1 did not start at tick 1: its judge is gone
	if ownerAlive(dead) {
		t.Skip("pid 1 started at tick 1 on this machine")
	}
	stale := parent + "/" + dead
	if err := os.Mkdir(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale+"/cgroup.procs", nil, 0o644); err != nil { // empty: no process left
		t.Fatal(err)
	}
	saved := rmdirCgroup
	defer func() { rmdirCgroup = saved }()
	rmdirCgroup = func(string) error { return syscall.EBUSY }
	if err := removeStale([]string{parent}, t.TempDir()); err != nil {
		t.Fatalf("removeStale: %v", err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the stale cgroup is still under its own name: %v", err)
	}
	if _, err := os.Stat(parent + "/" + leakedPrefix + dead); err != nil {
		t.Fatalf("not set aside: %v", err)
	}
	if ownerAlive(dead) || !ownerAlive(leakedPrefix+dead) {
		t.Fatal("the set-aside name must read as not ours")
	}
	// A second cleanup leaves it alone.
	rmdirCgroup = func(string) error { t.Fatal("tried to remove a set-aside cgroup"); return nil }
	if err := removeStale([]string{parent}, t.TempDir()); err != nil {
		t.Fatalf("second removeStale: %v", err)
	}
}
