package worker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
	td := newTaskDir(t, workDir)
	for dir, want := range map[string]os.FileMode{workDir: 0o700, td.dir: 0o711, td.pkg: 0o755} {
		fi, err := os.Stat(dir)
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, %v; want %04o", dir, fi.Mode().Perm(), err, want)
		}
	}
	if name := filepath.Base(td.pkg); len(name) != 32 {
		t.Errorf("package folder %q: want 128 random bits in hex", name)
	}
	if other := newTaskDir(t, workDir); filepath.Base(other.pkg) == filepath.Base(td.pkg) {
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

// preparedWorkDir is a WORK_DIR for a test, made by PrepareWorkDir.
func preparedWorkDir(t *testing.T) string {
	t.Helper()
	workDir := filepath.Join(t.TempDir(), "work")
	if err := PrepareWorkDir(workDir); err != nil {
		t.Fatal(err)
	}
	return workDir
}

// newTaskDir makes a task folder in workDir, removed when the test ends.
func newTaskDir(t *testing.T, workDir string) *taskDir {
	t.Helper()
	td, err := makeTaskDir(workDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(td.remove)
	return td
}
