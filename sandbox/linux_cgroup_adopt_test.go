//go:build linux

package sandbox

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// While a sandbox runs, each of its cgroups holds exactly its placeholder
// and its program: both were born inside, and the judge's start thread,
// which made them from inside the cgroup on v1, ends there right after the
// start (were it given back to the Go scheduler instead, the judge's pid
// would stay listed, and other goroutines would run in the sandbox's
// namespaces and cgroup).
func TestLinuxCgroupHoldsOnlyTheSandbox(t *testing.T) {
	r := requireLinuxRunner(t)
	p := startIdle(t, r)
	want := []int{p.init.Pid, p.main.Pid}
	slices.Sort(want)
	assertCgroupHolds(t, p.cg, want)
	p.Stdin().Close()
	io.Copy(io.Discard, p.Stdout())
	if u, err := p.Wait(); err != nil || u.ExitCode != 0 {
		t.Fatalf("cat: usage %+v, err %v", u, err)
	}
}

// assertCgroupHolds checks that every dir of cg holds exactly the
// processes want, once the judge's start thread has ended (within 5 s).
func assertCgroupHolds(t *testing.T, cg *sandboxCgroup, want []int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for _, dir := range cg.dirs {
		path := filepath.Join(dir, "cgroup.procs")
		got := readPids(t, path)
		for slices.Contains(got, os.Getpid()) && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
			got = readPids(t, path)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s = %v, want the placeholder and the program %v (judge is %d)", path, got, want, os.Getpid())
		}
	}
}

func readPids(t *testing.T, path string) []int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("%s: %q: %v", path, f, err)
		}
		pids = append(pids, n)
	}
	slices.Sort(pids)
	return pids
}

// Limits.Pids counts the program and everything it forks, exactly: the
// placeholder and the judge's start thread are not charged to it.
func TestLinuxPidsLimitIsExact(t *testing.T) {
	r := requireLinuxRunner(t)
	const limit = 6
	res := run(t, r, Spec{Args: pyArgs(fmt.Sprintf(pyForkChildren, 1000)), Limits: Limits{Pids: limit}}, "")
	want := fmt.Sprintf("stopped %d %d\n", limit-1, syscall.EAGAIN)
	if res.stdout != want {
		t.Fatalf("stdout %q (stderr %q), want %q: the program and %d children", res.stdout, res.stderr, want, limit-1)
	}
}
