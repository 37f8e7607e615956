package worker

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestHelperProcess is a second worker for the tests below, or a side of
// BenchmarkRunObserver's runs, run as a child process of the test binary:
// it is not a test of its own.
func TestHelperProcess(t *testing.T) {
	workDir := os.Getenv("TETHER_WORKER_HELPER_WORK_DIR")
	switch os.Getenv("TETHER_WORKER_HELPER") {
	case "":
		return
	case "make-task-dir": // a worker that dies while judging: its folder stays
		td, err := makeTaskDir(workDir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(td.dir)
	case "clean": // a worker starting up
		for _, dir := range RemoveStaleTasks(workDir) {
			fmt.Println(dir)
		}
	case "bench-side": // the side named after the test flags
		os.Exit(playSide(flag.Arg(0)))
	}
	os.Exit(0)
}

func helper(t *testing.T, mode, workDir string, attr *syscall.SysProcAttr) ([]string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "TETHER_WORKER_HELPER="+mode, "TETHER_WORKER_HELPER_WORK_DIR="+workDir)
	cmd.SysProcAttr = attr
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	return strings.Fields(string(out)), err
}

// A worker in another PID namespace (another container sharing WORK_DIR)
// keeps the folder of a task this worker is judging: liveness is the
// folder's lock, not a pid. The folder of a worker that is gone, and one
// that no worker locks (a worker killed before it locked it, or an earlier
// release's), are removed.
func TestStaleTaskFoldersAcrossPIDNamespaces(t *testing.T) {
	workDir := preparedWorkDir(t)
	live := newTaskDir(t, workDir)
	out, err := helper(t, "make-task-dir", workDir, nil)
	if err != nil || len(out) != 1 {
		t.Fatalf("helper worker: %q, %v", out, err)
	}
	gone := out[0]
	unlocked := filepath.Join(workDir, taskDirPrefix+"123-456")
	if err := os.Mkdir(unlocked, 0o700); err != nil {
		t.Fatal(err)
	}

	removed, err := helper(t, "clean", workDir, &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID})
	if errors.Is(err, syscall.EPERM) {
		t.Logf("no new PID namespace here (%v): the clean-up runs in this one", err)
		removed, err = helper(t, "clean", workDir, nil)
	}
	if err != nil {
		t.Fatalf("clean-up worker: %v", err)
	}
	slices.Sort(removed)
	want := []string{gone, unlocked}
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Fatalf("clean-up removed %q, want %q (live %s)", removed, want, live.dir)
	}
	for _, dir := range []string{live.dir, live.pkg} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s: %v: the live task folder was removed", dir, err)
		}
	}
	for _, dir := range want {
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there (%v)", dir, err)
		}
	}
}
