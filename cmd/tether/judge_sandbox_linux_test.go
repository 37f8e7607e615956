//go:build linux

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/testfiles"
	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/sandbox/sandboxtest"
)

// sbxTetherBinary builds the tether command: the cleanup tests signal a
// real judge process, not this test binary.
func sbxTetherBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tether")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build tether: %v\n%s", err, out)
	}
	return bin
}

// sbxProblem writes a problem whose evaluator makes one call with a 60 s
// deadline and accepts "ok", into a world-readable dir.
func sbxProblem(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "problem")
	os.Mkdir(dir, 0o755)
	files := map[string]string{
		"problem.json": `{"runtime_config":{"evaluator":{"time_limit_ms":60000},"solution":{"call_timeout_ms":60000,"memory_limit_mb":128}}}`,
		"evaluate.py": `from tether_sdk.evaluator import SolutionRunner, result
if SolutionRunner().call("run", timeout_ms=60000) == "ok":
    result.accept()
else:
    result.wrong_answer()
`,
		"sleeps.py": "import time\n\ndef run():\n    print('in the call')\n    time.sleep(60)\n    return 'ok'\n",
		"quick.py":  "def run():\n    return 'ok'\n",
	}
	testfiles.Write(t, dir, files)
	return dir
}

// sbxCgroupParents are the tether cgroup parents of every hierarchy this
// process (and so a judge it starts) belongs to.
func sbxCgroupParents(t *testing.T) []string {
	t.Helper()
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	var parents []string
	for _, line := range strings.Split(strings.TrimSpace(string(own)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 || strings.HasPrefix(parts[1], "name=") {
			continue
		}
		roots := []string{"/sys/fs/cgroup/" + parts[1]}
		if parts[1] == "" { // v2: the whole mount, or its hybrid place
			roots = []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}
		}
		for _, root := range roots {
			parents = append(parents, filepath.Join(root, parts[2], "tether"))
		}
	}
	return parents
}

// sbxState is what a judge process (by pid) has on the host.
type sbxState struct {
	cgroups, tempDirs, mounts []string
	procs                     map[int]string // pid → its /proc stat start time
}

func sbxObserve(t *testing.T, judgePid int) sbxState {
	t.Helper()
	tag := strconv.Itoa(judgePid) + "-"
	s := sbxState{procs: map[int]string{}}
	for _, parent := range sbxCgroupParents(t) {
		m, _ := filepath.Glob(filepath.Join(parent, tag+"*"))
		s.cgroups = append(s.cgroups, m...)
		for _, dir := range m {
			data, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
			for _, f := range strings.Fields(string(data)) {
				pid, _ := strconv.Atoi(f)
				if st := sbxStartTime(pid); st != "" {
					s.procs[pid] = st
				}
			}
		}
	}
	s.tempDirs, _ = filepath.Glob(filepath.Join(os.TempDir(), "tether-sbx-"+tag+"*"))
	info, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(info), "\n") {
		if strings.Contains(line, "tether-sbx-"+tag) {
			s.mounts = append(s.mounts, line)
		}
	}
	return s
}

// sbxStartTime is "" for a process that is gone, a zombie, or exiting: a
// user process whose address space is released (vsize 0) runs no code any
// more; a PID namespace's init stays so while it waits for its namespace's
// zombies to be reaped by the host's init.
func sbxStartTime(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(fields) < 21 || fields[0] == "Z" || fields[0] == "X" || fields[20] == "0" {
		return ""
	}
	return fields[19]
}

// sbxStillRunning lists the processes of before that still run.
func sbxStillRunning(before sbxState) []int {
	var alive []int
	for pid, start := range before.procs {
		if sbxStartTime(pid) == start {
			alive = append(alive, pid)
		}
	}
	return alive
}

// sbxStartJudge starts `tether judge --sandbox linux` on the sleeping
// solution and returns once the solution is inside its call: both
// sandboxes exist and the trace has the log line the call prints first.
func sbxStartJudge(t *testing.T, bin, problem string) (*exec.Cmd, *bytes.Buffer, sbxState) {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	cmd := exec.Command(bin, "judge", "--sandbox", "linux", "--trace", trace, problem, filepath.Join(problem, "sleeps.py"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second // never hang on a pipe a leftover child holds
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(trace)
		s := sbxObserve(t, cmd.Process.Pid)
		if strings.Contains(string(data), `"type":"log"`) && len(s.cgroups) >= 2 && len(s.procs) >= 4 {
			return cmd, &stderr, s
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the judge never got into the call; trace:\n%s\nstderr:\n%s", data, stderr.String())
		}
		time.Sleep(50 * time.Millisecond) // polling a condition (a file, /proc), not synchronising
	}
}

func sbxWaitExit(t *testing.T, cmd *exec.Cmd) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("the judge did not exit within 30 s")
		return nil
	}
}

func sbxWantClean(t *testing.T, pid int, before sbxState) {
	t.Helper()
	after := sbxObserve(t, pid)
	if len(after.cgroups) > 0 || len(after.tempDirs) > 0 || len(after.mounts) > 0 {
		t.Errorf("left behind: cgroups %v, temp dirs %v, mounts %v", after.cgroups, after.tempDirs, after.mounts)
	}
	if alive := sbxStillRunning(before); len(alive) > 0 {
		t.Errorf("processes of the run still running: %v", alive)
	}
}

// SIGTERM mid-call: the judge stops both sandboxes and removes everything
// it made before it exits. Mounts never reach the host's mount table.
func TestJudgeSIGTERMCleansUp(t *testing.T) {
	sandboxtest.Linux(t) // the test runs the linux sandbox through the binary
	bin := sbxTetherBinary(t)
	problem := sbxProblem(t)
	cmd, stderr, running := sbxStartJudge(t, bin, problem)
	if len(running.tempDirs) < 3 { // two sandboxes and the Python SDK
		t.Errorf("while running: temp dirs %v, want the two sandboxes' and the SDK's", running.tempDirs)
	}
	if len(running.mounts) > 0 {
		t.Errorf("sandbox mounts visible on the host: %v", running.mounts)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err := sbxWaitExit(t, cmd)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !strings.Contains(stderr.String(), "cancelled") {
		t.Errorf("exit %v, stderr %q: want a failure that says the run was cancelled", err, stderr.String())
	}
	sbxWantClean(t, cmd.Process.Pid, running)
}

// kill -9 of the judge ends its sandboxes' processes at once; the next
// judge run on the machine removes their cgroups and temp dirs.
func TestJudgeAfterKill9CleansUpTheDeadJudge(t *testing.T) {
	sandboxtest.Linux(t) // the test runs the linux sandbox through the binary
	bin := sbxTetherBinary(t)
	problem := sbxProblem(t)
	cmd, _, running := sbxStartJudge(t, bin, problem)
	cmd.Process.Kill()
	sbxWaitExit(t, cmd)
	// The sandboxes die with their judge (the lifeline), before any other
	// judge runs; what they leave on disk is the next judge's to remove.
	deadline := time.Now().Add(5 * time.Second)
	for len(sbxStillRunning(running)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // polling a condition (/proc), not synchronising
	}
	if alive := sbxStillRunning(running); len(alive) > 0 {
		t.Errorf("processes outlived their kill -9'd judge by 5 s: %v", alive)
	}

	second := exec.Command(bin, "judge", "--sandbox", "linux", problem, filepath.Join(problem, "quick.py"))
	out, err := second.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "verdict:  Accepted") {
		t.Fatalf("second run: %v\n%s", err, out)
	}
	sbxWantClean(t, cmd.Process.Pid, running)
	sbxWantClean(t, second.Process.Pid, sbxState{})
}

// A problem folder the sandbox user cannot read is the problem's setup
// error: SystemError whose message says what to fix (the judge checks it
// once, before anything is started).
func TestJudgeRefusesUnreadableProblemFolder(t *testing.T) {
	sandboxtest.Linux(t) // the test runs the linux sandbox through the binary
	dir, sol := shellProblem(t)
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	res, _ := judgeJSON(t, dir, sol, "--sandbox", "linux")
	if res.Status != judge.SystemError || !strings.Contains(string(res.Details), judge.ErrProblemUnreadable.Error()) ||
		!strings.Contains(string(res.Details), "chmod -R a+rX "+dir) || res.Exit.Evaluator != nil {
		t.Fatalf("got %v %s exit %+v", res.Status, res.Details, res.Exit)
	}
}
