package judge

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/tether-dev/tether/sandbox"
)

// ErrProblemUnreadable: the sandbox's unprivileged user cannot read the
// problem folder, so the evaluator could not open its own files.
var ErrProblemUnreadable = errors.New("problem folder not readable by the sandbox user")

// sandboxUser is implemented by runners that run programs as another user
// (the linux runner); the plain runner runs as the judge and needs no check.
type sandboxUser interface {
	User() (uid, gid int)
}

// CheckProblemAccess reports, as a *ProblemError wrapping
// ErrProblemUnreadable, the first entry of the problem folder that the
// runner's sandbox user could not read (a file) or list and enter (a
// directory). The folder is bound into the evaluator's sandbox at the same
// path, so only the folder and what is in it count, not its parents: a
// problem under a private /root works as long as the folder itself is
// readable.
//
// The judge fails instead of copying the folder to a readable place: data
// files can be large, and a copy per run would hide from the problem's
// author that the folder is not laid out as the sandbox needs. Symbolic
// links are not followed.
func CheckProblemAccess(p *Problem, r sandbox.Runner) error {
	su, ok := r.(sandboxUser)
	if !ok {
		return nil
	}
	uid, gid := su.User()
	return filepath.WalkDir(p.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return unreadable(p.Dir, path, uid, err.Error())
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return unreadable(p.Dir, path, uid, err.Error())
		}
		need, what := os.FileMode(4), "read"
		if d.IsDir() {
			need, what = 5, "list and enter"
		}
		if !permits(info, uid, gid, need) {
			return unreadable(p.Dir, path, uid, fmt.Sprintf("mode %v does not let it %s", info.Mode().Perm(), what))
		}
		return nil
	})
}

func unreadable(dir, path string, uid int, why string) error {
	return &ProblemError{Path: path, Err: fmt.Errorf("%w (uid %d): %s; make the folder readable, e.g. chmod -R a+rX %s",
		ErrProblemUnreadable, uid, why, dir)}
}

// permits applies the owner, group or other bits the way the kernel picks
// them for a process with that uid and only that gid.
func permits(info fs.FileInfo, uid, gid int, need os.FileMode) bool {
	perm := info.Mode().Perm()
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		switch {
		case int(st.Uid) == uid:
			return (perm>>6)&need == need
		case int(st.Gid) == gid:
			return (perm>>3)&need == need
		}
	}
	return perm&need == need
}
