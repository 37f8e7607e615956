package worker

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/tether-dev/tether/internal/privdir"
)

// DefaultWorkDir is WORK_DIR when none is given: a folder no other local
// user can make first, /var/lib/tether/worker for root and the user's state
// folder ($XDG_STATE_HOME, else ~/.local/state) plus tether/worker for
// anyone else.
func DefaultWorkDir() string {
	if os.Geteuid() == 0 {
		return "/var/lib/tether/worker"
	}
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "tether", "worker")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "tether", "worker")
	}
	return "/var/lib/tether/worker" // no home: fails below unless root made it
}

// PrepareWorkDir makes dir (mode 0700) when it is missing, then checks it
// is private (CheckPrivateDir) and makes it 0700 if others may read it:
// the packages judged in it hold hidden tests.
func PrepareWorkDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("WORK_DIR %s: %v", dir, err)
	}
	if err := CheckPrivateDir("WORK_DIR", dir); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("WORK_DIR %s: %v", dir, err)
	}
	return nil
}

// CheckPrivateDir refuses dir (named what in errors) unless it is a folder
// owned by this process's uid that neither group nor others may write, in
// folders that only root or this uid may rename it in: otherwise another
// local user could have made it, or could change it, to plant results or
// read packages.
func CheckPrivateDir(what, dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("%s %s: %v", what, dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return fmt.Errorf("%s %s: %v", what, dir, err)
	}
	uid := uint32(os.Geteuid())
	fi, err := os.Lstat(real)
	if err != nil {
		return fmt.Errorf("%s %s: %v", what, dir, err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s %s is not a folder: remove it, or choose another %s", what, dir, what)
	case st.Uid != uid:
		return fmt.Errorf("%s %s is owned by uid %d, not by this worker's uid %d: another user may have made it to plant results or read packages; remove it (or choose another %s) and start the worker again", what, dir, st.Uid, uid, what)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s %s may be written by group or others (mode %04o): run chmod 0700 %s, after checking nothing was planted in it", what, dir, fi.Mode().Perm(), dir)
	}
	// Each folder above, as the path was given and as it resolves, must
	// not let another user rename or replace what is below it.
	for _, p := range []string{abs, real} {
		for up := filepath.Dir(p); ; up = filepath.Dir(up) {
			if err := checkAncestor(what, dir, up, uid); err != nil {
				return err
			}
			if up == filepath.Dir(up) {
				break
			}
		}
	}
	return nil
}

func checkAncestor(what, dir, up string, uid uint32) error {
	fi, err := os.Lstat(up)
	if err != nil {
		return fmt.Errorf("%s %s: %v", what, dir, err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if st.Uid != 0 && st.Uid != uid {
		return fmt.Errorf("%s %s is inside %s, owned by uid %d, who can replace it: choose a %s in folders owned by root or by this worker's uid %d", what, dir, up, st.Uid, what, uid)
	}
	if fi.Mode()&fs.ModeSymlink == 0 && fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
		return fmt.Errorf("%s %s is inside %s, which group or others may write (mode %04o) without the sticky bit: any of them can replace it; choose a %s elsewhere", what, dir, up, fi.Mode().Perm(), what)
	}
	return nil
}

// taskDirPrefix starts a task folder's name. A task folder is locked
// (flock on the folder itself) by its worker for as long as it judges the
// task, and holds the package in a folder with an unguessable name
// (privdir).
const taskDirPrefix = "task-"

// taskDir is a task's folder, locked while it exists.
type taskDir struct {
	dir  string // WORK_DIR/task-*
	pkg  string // the package: dir/<128 random bits in hex>
	lock *os.File
}

// makeTaskDir makes a locked task folder under workDir.
func makeTaskDir(workDir string) (*taskDir, error) {
	for try := 0; ; try++ {
		td, err := tryTaskDir(workDir)
		if err == nil {
			return td, nil
		}
		// A clean-up may take a folder between its mkdir and its lock.
		if !errors.Is(err, errTaskDirTaken) && !errors.Is(err, fs.ErrNotExist) || try == 3 {
			return nil, err
		}
	}
}

// errTaskDirTaken: a clean-up removed the folder before it was locked.
var errTaskDirTaken = errors.New("the task folder was removed by a clean-up before it was locked")

func tryTaskDir(workDir string) (*taskDir, error) {
	dir, pkg, err := privdir.New(workDir, taskDirPrefix)
	if err != nil {
		return nil, err
	}
	f, err := lockDir(dir, syscall.LOCK_EX)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// Locked: no clean-up can take it now; one that took it first removed
	// it, and ours is a lock on nothing.
	held, err1 := f.Stat()
	named, err2 := os.Lstat(dir)
	if _, err3 := os.Lstat(pkg); err1 != nil || err2 != nil || err3 != nil || !os.SameFile(held, named) {
		f.Close()
		return nil, errTaskDirTaken
	}
	if err := CheckPrivateDir("task folder", dir); err != nil {
		os.RemoveAll(dir)
		f.Close()
		return nil, err
	}
	return &taskDir{dir: dir, pkg: pkg, lock: f}, nil
}

// lockDir opens dir (not a link) and flocks it with how.
func lockDir(dir string, how int) (*os.File, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return f, nil
}

// remove removes the folder, then lets go of its lock.
func (td *taskDir) remove() {
	os.RemoveAll(td.dir)
	td.lock.Close()
}

// RemoveStaleTasks removes the task folders under workDir whose worker is
// gone (kill -9, a crash): those it can lock. A live worker holds its
// folder's lock, in whatever PID namespace or container it runs (flock is
// the kernel's, so this holds for the file systems of one machine, not
// across NFS clients).
func RemoveStaleTasks(workDir string) []string {
	names, _ := filepath.Glob(filepath.Join(workDir, taskDirPrefix+"*"))
	var removed []string
	for _, name := range names {
		if removeIfStale(name) {
			removed = append(removed, name)
		}
	}
	return removed
}

func removeIfStale(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Sys().(*syscall.Stat_t).Uid != uint32(os.Geteuid()) {
		return false
	}
	f, err := lockDir(dir, syscall.LOCK_EX|syscall.LOCK_NB)
	if err != nil {
		return false // its worker is alive
	}
	defer f.Close()
	return os.RemoveAll(dir) == nil
}
