package worker

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestHelperProcess is a second worker for the tests below, run as a child
// process of the test binary: it is not a test of its own.
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
	workDir := filepath.Join(t.TempDir(), "work")
	if err := PrepareWorkDir(workDir); err != nil {
		t.Fatal(err)
	}
	live, err := makeTaskDir(workDir)
	if err != nil {
		t.Fatal(err)
	}
	defer live.remove()
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

// A task folder is private: its package sits under WORK_DIR (0700) in a
// folder whose name cannot be guessed, and no one else may list the task
// folder.
func TestTaskFolderIsPrivate(t *testing.T) {
	workDir := filepath.Join(t.TempDir(), "work")
	if err := os.Mkdir(workDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := PrepareWorkDir(workDir); err != nil {
		t.Fatal(err)
	}
	td, err := makeTaskDir(workDir)
	if err != nil {
		t.Fatal(err)
	}
	defer td.remove()
	for dir, want := range map[string]os.FileMode{workDir: 0o700, td.dir: 0o711, td.pkg: 0o755} {
		fi, err := os.Stat(dir)
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, %v; want %04o", dir, fi.Mode().Perm(), err, want)
		}
	}
	if name := filepath.Base(td.pkg); len(name) != 32 {
		t.Errorf("package folder %q: want 128 random bits in hex", name)
	}
	other, err := makeTaskDir(workDir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.remove()
	if filepath.Base(other.pkg) == filepath.Base(td.pkg) {
		t.Error("two package folders have one name")
	}
}

// A WORK_DIR another user owns or may write is refused with the fix.
func TestSquattedWorkDirIsRefused(t *testing.T) {
	base := t.TempDir()
	foreign := filepath.Join(base, "foreign")
	open := filepath.Join(base, "open")
	inOpen := filepath.Join(open, "work")
	for _, dir := range []string{foreign, open, inOpen} {
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{open: "chmod 0700", inOpen: "without the sticky bit"}
	if os.Geteuid() == 0 { // only root can give a folder away
		if err := os.Chown(foreign, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cases[foreign] = "owned by uid 65534"
	}
	for dir, want := range cases {
		err := PrepareWorkDir(dir)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), dir) {
			t.Errorf("PrepareWorkDir(%s) = %v, want an error naming it and saying %q", dir, err, want)
		}
	}
	if _, err := makeTaskDir(inOpen); err == nil {
		t.Error("a task folder was made in a WORK_DIR that others may replace")
	}
}

// The default WORK_DIR is not in a folder every user may write (as
// $TMPDIR/tether-worker was): root's is under /var/lib, anyone else's in
// their state folder.
func TestDefaultWorkDirIsNotInASharedFolder(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	got := DefaultWorkDir()
	want := filepath.Join(state, "tether", "worker")
	if os.Geteuid() == 0 {
		want = "/var/lib/tether/worker"
	}
	if got != want || strings.HasPrefix(got, os.TempDir()) && os.Geteuid() == 0 {
		t.Fatalf("DefaultWorkDir() = %s, want %s", got, want)
	}
}
