package worker

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

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

// taskDirPrefix starts a task folder's name. A task folder holds lockName,
// locked by its worker for as long as it judges the task, and the package
// in a folder with an unguessable name (privdir).
const (
	taskDirPrefix = "task-"
	lockName      = "lock"
	// unlockedGrace is how old a task folder without a lock file must be
	// to be removed: one is that young only while its worker makes it.
	unlockedGrace = time.Minute
)

// taskDir is a task's folder, locked while it exists.
type taskDir struct {
	dir  string // WORK_DIR/task-*
	pkg  string // the package: dir/<128 random bits in hex>
	lock *os.File
}

// makeTaskDir makes a locked task folder under workDir.
func makeTaskDir(workDir string) (*taskDir, error) {
	for try := 0; ; try++ {
		dir, pkg, err := privdir.New(workDir, taskDirPrefix)
		if err != nil {
			return nil, err
		}
		td, err := lockTaskDir(dir, pkg)
		if err == nil {
			return td, nil
		}
		os.RemoveAll(dir)
		if !errors.Is(err, errTaskDirTaken) || try == 3 {
			return nil, err
		}
	}
}

// errTaskDirTaken: a clean-up removed the folder before it was locked.
var errTaskDirTaken = errors.New("the task folder was removed by a clean-up before it was locked")

func lockTaskDir(dir, pkg string) (*taskDir, error) {
	if err := CheckPrivateDir("task folder", dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// A clean-up that took the lock before us removed the file: ours is
	// then a lock on nothing.
	held, err1 := f.Stat()
	named, err2 := os.Lstat(path)
	if err1 != nil || err2 != nil || !os.SameFile(held, named) {
		f.Close()
		return nil, errTaskDirTaken
	}
	return &taskDir{dir: dir, pkg: pkg, lock: f}, nil
}

// remove removes the folder, then lets go of its lock.
func (td *taskDir) remove() {
	os.RemoveAll(td.dir)
	td.lock.Close()
}

// RemoveStaleTasks removes the task folders under workDir whose worker is
// gone (kill -9, a crash): those whose lock it can take. A live worker
// holds its folder's lock, in whatever PID namespace or container it runs
// (flock is the kernel's, so this holds for one machine's file systems,
// not across NFS clients). A folder without a lock file is removed once
// it is older than a minute (one is made, then locked, at once).
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
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, fs.ErrNotExist) {
		if time.Since(fi.ModTime()) < unlockedGrace {
			return false
		}
		return os.RemoveAll(dir) == nil
	}
	if err != nil {
		return false
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false // its worker is alive
	}
	return os.RemoveAll(dir) == nil
}
