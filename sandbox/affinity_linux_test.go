package sandbox

import (
	"context"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// otherCPU is an allowed CPU other than the first, so a pinned child
// cannot pass by accident; the test is skipped with fewer than two.
func otherCPU(t *testing.T) int {
	t.Helper()
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	last := -1
	for c := 0; c < len(set)*64; c++ {
		if set.IsSet(c) {
			last = c
		}
	}
	if set.Count() < 2 {
		t.Skip("needs two CPUs")
	}
	return last
}

const printAffinity = "import os; print(sorted(os.sched_getaffinity(0)))"

func TestPlainCPUs(t *testing.T) {
	cpu := otherCPU(t)
	runtime.LockOSThread() // Start runs on this thread too: its mask must come back
	defer runtime.UnlockOSThread()
	var before, after unix.CPUSet
	unix.SchedGetaffinity(0, &before)

	p := startPlain(t, Spec{Args: pyArgs(printAffinity), CPUs: []int{cpu}})
	unix.SchedGetaffinity(0, &after)
	out, _ := io.ReadAll(p.Stdout())
	p.Wait()
	if got, want := strings.TrimSpace(string(out)), "["+strconv.Itoa(cpu)+"]"; got != want {
		t.Fatalf("the child's CPUs: %s, want %s", got, want)
	}
	if before != after {
		t.Fatalf("the starting thread's CPUs changed: %s before, %s after", cpuList(&before), cpuList(&after))
	}
}

func TestLinuxCPUs(t *testing.T) {
	cpu := otherCPU(t)
	for _, warm := range []int{0, 1} {
		r := requireLinuxRunnerWith(t, &LinuxOptions{WarmStarts: warm})
		res := run(t, r, Spec{Args: pyArgs(printAffinity), CPUs: []int{cpu}}, "")
		if got, want := strings.TrimSpace(res.stdout), "["+strconv.Itoa(cpu)+"]"; got != want {
			t.Fatalf("warm starts %d: the program's CPUs: %s (stderr %q), want %s", warm, got, res.stderr, want)
		}
	}
}

func TestCPUsNotAvailableFailStart(t *testing.T) {
	var allowed unix.CPUSet
	unix.SchedGetaffinity(0, &allowed)
	missing := 0
	for allowed.IsSet(missing) {
		missing++
	}
	runners := []Runner{NewPlain()}
	if r, err := NewLinux(nil); err == nil {
		defer r.Close()
		runners = append(runners, r)
	}
	for _, r := range runners {
		for _, cpus := range [][]int{{-1}, {missing}, {1 << 20}} {
			p, err := r.Start(context.Background(), Spec{Args: []string{"true"}, Env: []string{"PATH=/usr/bin:/bin"}, CPUs: cpus})
			if err == nil {
				p.Close()
				t.Fatalf("%s: CPUs %v: started", r.Kind(), cpus)
			}
			if want := "CPU " + strconv.Itoa(cpus[0]) + " is not one this process may run on"; !strings.Contains(err.Error(), want) {
				t.Fatalf("%s: CPUs %v: %v; want it to say %q", r.Kind(), cpus, err, want)
			}
		}
	}
}

// A pinned program that widens its own affinity (sched_setaffinity), or a
// child's, still runs only on its CPU: the cpuset cgroup holds it there.
func TestLinuxCPUsCannotBeEscaped(t *testing.T) {
	cpu := otherCPU(t)
	for _, warm := range []int{0, 1} {
		r := requireLinuxRunnerWith(t, &LinuxOptions{WarmStarts: warm})
		if !r.cgroups.cpuset {
			if os.Getenv("TETHER_REQUIRE_SANDBOX") == "1" {
				t.Fatal("TETHER_REQUIRE_SANDBOX=1 but the cpuset cgroup controller is not offered to this process")
			}
			t.Skip("no cpuset cgroup controller here: Spec.CPUs is only an affinity")
		}
		res := run(t, r, Spec{Args: pyArgs(`
import os
everything = set(range(64))  # os.cpu_count() reads /sys, which is not there
try:
    os.sched_setaffinity(0, everything)
except OSError as e:
    print("refused", e.errno)
print(sorted(os.sched_getaffinity(0)), flush=True)
pid = os.fork()
if pid == 0:
    try:
        os.sched_setaffinity(0, everything)
    except OSError:
        pass
    print(sorted(os.sched_getaffinity(0)), flush=True)
    os._exit(0)
os.waitpid(pid, 0)
`), CPUs: []int{cpu}}, "")
		want := strings.Repeat("["+strconv.Itoa(cpu)+"]\n", 2)
		if res.stdout != want {
			t.Fatalf("warm starts %d: the program's CPUs after widening them: %q (stderr %q), want %q", warm, res.stdout, res.stderr, want)
		}
	}
}
