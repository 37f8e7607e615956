//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// waitWarm waits until w has n prepared threads and returns them.
func waitWarm(w *warmPool, n int) ([]*warmThread, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		w.mu.Lock()
		ready := slices.Clone(w.ready)
		w.mu.Unlock()
		if len(ready) >= n {
			return ready, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%d of %d start threads prepared after 5 s", len(ready), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func warmRunner(t *testing.T, n int) *Linux {
	t.Helper()
	r := requireLinuxRunnerWith(t, &LinuxOptions{WarmStarts: n})
	if r.warm == nil {
		t.Fatal("WarmStarts set but no warm pool")
	}
	return r
}

// A runner prepares WarmStarts threads as soon as it is made, and again
// after a start, each in a cgroup of its own that holds only that thread.
func TestLinuxWarmPoolPrepares(t *testing.T) {
	r := warmRunner(t, 2)
	if _, err := waitWarm(r.warm, 2); err != nil {
		t.Fatalf("before any Start: %v", err)
	}
	run(t, r, Spec{Args: []string{"true"}}, "")
	ready, err := waitWarm(r.warm, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(ready) != 2 || slices.Equal(ready[0].cg.dirs, ready[1].cg.dirs) {
		t.Fatalf("want 2 threads in distinct cgroups, got %d", len(ready))
	}
	// On cgroup v2 a prepared thread holds the cgroup's directory open
	// (CLONE_INTO_CGROUP) instead of moving in: the cgroup is empty.
	want := []int{os.Getpid()}
	if r.cgroups.v2 {
		want = nil
	}
	for _, w := range ready {
		for _, dir := range w.cg.dirs {
			if got := readPids(t, filepath.Join(dir, "cgroup.procs")); !slices.Equal(got, want) {
				t.Errorf("%s holds %v, want %v (judge %d)", dir, got, want, os.Getpid())
			}
		}
	}
}

// A warm start is isolated exactly like a cold one: identity, its cgroup
// holds only the sandbox, the pids limit is exact, and each sandbox gets a
// cgroup no process ran in before (never one a program used), removed by
// Close.
func TestLinuxWarmStartIsolation(t *testing.T) {
	r := warmRunner(t, 1)
	run(t, r, Spec{Args: []string{"true"}}, "") // its Close prepares the next
	ready, err := waitWarm(r.warm, 1)
	if err != nil {
		t.Fatal(err)
	}
	prepared := ready[0].cg.dirs

	p := startIdle(t, r)
	if !slices.Equal(p.cg.dirs, prepared) {
		t.Fatalf("start used cgroup %v, want the prepared %v", p.cg.dirs, prepared)
	}
	want := []int{p.init.Pid, p.main.Pid}
	slices.Sort(want)
	assertCgroupHolds(t, p.cg, want)
	p.Stdin().Close()
	io.Copy(io.Discard, p.Stdout())
	p.Wait()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	assertNothingLeft(t, p)

	next, err := waitWarm(r.warm, 1)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(next[0].cg.dirs, prepared) {
		t.Fatal("the next prepared thread reuses the cgroup of a finished sandbox")
	}
	res := run(t, r, Spec{Args: pyArgs(`
import os
print(os.getuid() >= 1_900_000_000, os.getpid())
n = 0
try:
    while True:
        if os.fork() == 0:
            import time; time.sleep(60); os._exit(0)
        n += 1
except OSError:
    print(n)
`), Limits: Limits{Pids: 4}}, "")
	if res.stdout != "True 2\n3\n" {
		t.Fatalf("stdout %q (stderr %q), want a sandbox uid, pid 2 and 3 forks", res.stdout, res.stderr)
	}
}

// More concurrent starts than prepared threads: the rest start cold, all
// run, and Close removes what is still prepared.
func TestLinuxWarmConcurrentStartsAndClose(t *testing.T) {
	r, err := NewLinux(&LinuxOptions{WarmStarts: 2})
	if err != nil {
		if os.Getenv("TETHER_REQUIRE_SANDBOX") == "1" {
			t.Fatalf("TETHER_REQUIRE_SANDBOX=1 but: %v", err)
		}
		t.Skipf("linux sandbox unavailable: %v", err)
	}
	defer r.Close()
	for round := 0; round < 3; round++ {
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for i := 0; i < 4; i++ {
			wg.Go(func() {
				proc, err := r.Start(context.Background(), Spec{Args: []string{"true"}})
				if err != nil {
					errs <- err
					return
				}
				proc.Stdin().Close()
				io.Copy(io.Discard, proc.Stdout())
				if u, err := proc.Wait(); err != nil || u.ExitCode != 0 {
					errs <- fmt.Errorf("usage %+v, err %v", u, err)
				}
				if err := proc.Close(); err != nil {
					errs <- err
				}
				assertNothingLeft(t, proc)
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
	ready, err := waitWarm(r.warm, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	for _, w := range ready {
		for _, d := range w.cg.dirs {
			if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("prepared cgroup %s still there after Close (%v)", d, err)
			}
		}
	}
}
