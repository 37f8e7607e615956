//go:build linux

package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/tether-dev/tether/dual"
	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/sandbox/sandboxtest"
)

// leftovers lists this judge's sandbox directories and cgroups still on
// the host (they are named after the judge's pid), and any child process
// of the judge still there. The judge's owner locks ("…-owner", one per
// folder, held while its runner is open: docs/sandbox.md) are not a run's.
func leftovers(t *testing.T) []string {
	t.Helper()
	pid := strconv.Itoa(os.Getpid())
	temps, _ := filepath.Glob(filepath.Join(os.TempDir(), "tether-sbx-"+pid+"-*"))
	var found []string
	for _, dir := range temps {
		if !strings.HasSuffix(dir, "-owner") {
			found = append(found, dir)
		}
	}
	// Sandbox cgroups sit in a "tether" folder under the judge's own cgroup
	// of each controller, at whatever depth that is.
	filepath.WalkDir("/sys/fs/cgroup", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if strings.HasPrefix(d.Name(), pid+"-") && !strings.HasSuffix(d.Name(), "-owner") && filepath.Base(filepath.Dir(path)) == "tether" {
			found = append(found, path)
			return fs.SkipDir
		}
		return nil
	})
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, stat := range stats {
		b, err := os.ReadFile(stat)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ")".
		if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); len(f) > 1 && f[1] == pid {
			found = append(found, "process "+stat+": "+string(b[:bytes.LastIndexByte(b, ')')+1]))
		}
	}
	return found
}

// hostilePythonPath is a dir for the solutions' PYTHONPATH: the SDK and
// testdata/hostile/lib, what the hostile scripts share. It is the test's
// own temp dir, not the judge's (leftovers would count that), readable by
// the sandbox's uid.
func hostilePythonPath(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "tether-hostile-python-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := writePythonSDK(dir); err != nil { // makes dir world-readable too
		t.Fatal(err)
	}
	libs, err := filepath.Glob("testdata/hostile/lib/*.py")
	if err != nil || len(libs) == 0 {
		t.Fatalf("no testdata/hostile/lib/*.py (%v)", err)
	}
	for _, lib := range libs {
		src, err := os.ReadFile(lib)
		if err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(dir, filepath.Base(lib))
		if err := os.WriteFile(target, src, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(target, 0o644); err != nil { // whatever the umask
			t.Fatal(err)
		}
	}
	return dir
}

// heapAfterGC is the judge's live heap: a flood the judge read must not
// stay in it.
func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// The hostile-solution suite of docs/sandbox.md, run through the judge with the
// linux runner: each solution gets its verdict, leaves nothing behind, and
// the next run on the same judge is clean.
func TestHostileSolutions(t *testing.T) {
	runner := sandboxtest.Isolating(t)
	problem, err := LoadProblem("testdata/hostile/problem", nil)
	if err != nil {
		t.Fatal(err)
	}
	scaleTimes(problem)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // accept and drop: a connect that got here would succeed
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	opts := &Options{
		Runner:     runner,
		PythonPath: hostilePythonPath(t),
		Env: []string{
			"TETHER_TEST_SECRET=" + filepath.Join(problem.Dir, "secret.txt"),
			"TETHER_TEST_PORT=" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port),
			"TETHER_TEST_JUDGE_PID=" + strconv.Itoa(os.Getpid()),
			"TETHER_TEST_TIME_SCALE=" + strconv.FormatFloat(testenv.TimeScale(), 'f', -1, 64),
		},
	}
	judge := func(t *testing.T, file string) *Result {
		t.Helper()
		code, err := os.ReadFile(filepath.Join("testdata/hostile", file))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), problem, &Submission{Path: file, Code: code}, opts)
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if res.Sandbox != runner.Kind() {
			t.Errorf("sandbox = %q, want %s", res.Sandbox, runner.Kind())
		}
		return res
	}
	for _, tc := range []struct {
		file  string
		want  Status
		check func(t *testing.T, res *Result) // more than the status, or nil
	}{
		// The pids limit (64) stops the bomb: every further fork fails with
		// EAGAIN, which the bomb ignores and keeps looping on, so run()
		// never returns and the call times out: TimeLimitExceeded. The 64
		// interpreters hold about 1 MiB of private memory each (reference
		// counting dirties the copy-on-write pages), about 64 MiB in all,
		// so the problem gives the solution 128 MiB; with a limit near 64
		// MiB the OOM killer can come first and the verdict is
		// MemoryLimitExceeded. A bomb that did not catch the fork error
		// would raise, and the evaluator say RuntimeError.
		{"fork_bomb.py", TimeLimitExceeded, nil},
		{"pids_probe.py", Accepted, nil}, // "blocked": a fork failed before 100 processes
		// OOM-killed in its cgroup; memory_kb is the cgroup's peak, near the limit.
		{"memory_hog.py", MemoryLimitExceeded, func(t *testing.T, res *Result) {
			if res.MemoryKB < 96<<10 || res.MemoryKB > 144<<10 {
				t.Errorf("memory_kb %d, want the cgroup peak near the 128 MiB limit", res.MemoryKB)
			}
		}},
		// cpu_ms comes from the cgroup (cpuacct): the loop spun for most of the 3 s call.
		{"infinite_loop.py", TimeLimitExceeded, func(t *testing.T, res *Result) {
			if res.CPUMs < 100 {
				t.Errorf("cpu_ms %d after a busy loop in a 3 s call", res.CPUMs)
			}
		}},
		{"stdout_flood.py", TimeLimitExceeded, heapBounded}, // junk lines dropped; the call times out
		{"long_line.py", Accepted, heapBounded},             // the 100 MiB line is skipped, the result after it arrives
		// Whole log frames count against the budget: most are dropped, the
		// result stays small, and the streams are from the fixed set.
		{"log_flood.py", Accepted, func(t *testing.T, res *Result) {
			heapBounded(t, res)
			// log_flood.py sends 8 frames of 1 MB and 20,000 empty ones;
			// every frame is either kept or counted as dropped.
			const sent = 8 + 20000
			if b, _ := json.Marshal(res); len(b) > 2<<20 || len(res.Logs.Kept) > dual.DefaultMaxLogFramesPerRun || len(res.Logs.Kept)+res.Logs.Dropped != sent {
				t.Errorf("result %d bytes, %d log frames kept, %d dropped", len(b), len(res.Logs.Kept), res.Logs.Dropped)
			}
			for _, l := range res.Logs.Kept {
				if l.Stream != "stdout" {
					t.Fatalf("kept a log with stream %.40q", l.Stream)
				}
			}
		}},
		{"forged_frames.py", Accepted, nil}, // call, cap_reg, unknown and duplicate results dropped
		{"non_utf8.py", Accepted, nil},
		{"close_stdout.py", RuntimeError, nil}, // the side is gone: the call fails at once
		{"suicide.py", RuntimeError, nil},
		{"tcp_connect.py", Accepted, nil}, // "blocked": no network
		{"read_data.py", Accepted, nil},   // "blocked": the problem folder is not there
		{"write_outside.py", Accepted, nil},
		{"signal_judge.py", Accepted, nil}, // the judge is not in its PID namespace
		{"big_file.py", Accepted, nil},     // "blocked": the 16 MiB file size rlimit
		{"many_files.py", Accepted, nil},   // "blocked": the 256 open files rlimit
	} {
		t.Run(tc.file, func(t *testing.T) {
			if runner.Kind() == "rootless" {
				// No cgroup: the memory limit is each process's data
				// size, so the hog's allocation fails (MemoryError) and
				// the evaluator reports it; CPU time is the process's.
				switch tc.file {
				case "memory_hog.py":
					tc.want, tc.check = RuntimeError, nil
				}
			}
			res := judge(t, tc.file)
			if res.Status != tc.want {
				t.Errorf("status %v, want %v; details %s; output %q", res.Status, tc.want, res.Details, res.Output)
			}
			if tc.check != nil {
				tc.check(t, res)
			}
			if left := leftovers(t); len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
			if next := judge(t, "good.py"); next.Status != Accepted {
				t.Errorf("next run: status %v, details %s, output %q", next.Status, next.Details, next.Output)
			}
		})
	}
	if left := leftovers(t); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// heapBounded checks that a run which flooded the judge left its heap small:
// lines are capped at 4 MiB and skipped past the cap, and the output tail at
// 1 MiB.
func heapBounded(t *testing.T, res *Result) {
	if h := heapAfterGC(); h > 64<<20 {
		t.Errorf("judge heap %d MiB after the run", h>>20)
	}
}
