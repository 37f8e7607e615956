//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// removeStale kills the processes of and removes every sandbox cgroup under
// parents, and every temp dir under tempRoot ("": none), whose judge is
// gone (see ownerAlive), and removes what earlier clean-ups set aside and
// the kernel now lets go. It is what makes a run after a `kill -9` of the
// judge clean.
func removeStale(parents []string, tempRoot string) error {
	var errs []error
	for _, parent := range parents {
		alive := func(name string) bool { return ownerAlive(parent, "", name) }
		errs = append(errs, removeDead(parent, alive, killCgroupTree)...)
		removeLeaked(parent, leakedPrefix)
	}
	if tempRoot != "" {
		errs = append(errs, removeStaleTemp(tempRoot, -1)...)
	}
	return errors.Join(errs...)
}

// removeStaleTemp removes the temp dirs under tempRoot whose judge is
// gone, only those owned by uid unless it is -1.
func removeStaleTemp(tempRoot string, uid int) []error {
	alive := func(name string) bool {
		tag, ok := strings.CutPrefix(name, tempPrefix)
		return !ok || !ownedBy(filepath.Join(tempRoot, name), uid) || ownerAlive(tempRoot, tempPrefix, tag)
	}
	return removeDead(tempRoot, alive, func(dir string) error {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("sandbox: remove stale %s: %w", filepath.Base(dir), err)
		}
		return nil
	})
}

// ownedBy reports whether path is owned by uid; any owner will do for -1.
func ownedBy(path string, uid int) bool {
	if uid == -1 {
		return true
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == uid
}

// removeStaleJudgeGroups removes the per-judge cgroups (judgeCPUGroup)
// under each of homes whose judge is gone, with the sandbox cgroups in
// them. A judge's owner lock for its group is inside the group.
func removeStaleJudgeGroups(homes []string) error {
	var errs []error
	for _, home := range homes {
		alive := func(name string) bool {
			tag, ok := strings.CutPrefix(name, cgroupParentName+"-")
			// tag+"-0": an entry name of the judge's tag (see entryTag).
			return !ok || ownerAlive(filepath.Join(home, name), "", tag+"-0")
		}
		errs = append(errs, removeDead(home, alive, killCgroupTree)...)
		removeLeaked(home, leakedPrefix+cgroupParentName+"-") // the judge's home is not tether's folder: only its own
	}
	return errors.Join(errs...)
}

// removeDead calls remove on each dir under parent whose judge, as alive
// tells from its name, is gone, and returns the errors. Every entry is
// judged before any is removed: a dead judge's owner lock is one of its
// entries, and once removed its other entries would be judged without it.
// A parent that does not exist holds none.
func removeDead(parent string, alive func(name string) bool, remove func(dir string) error) []error {
	entries, err := os.ReadDir(parent)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return []error{err}
	}
	var dead []string
	for _, e := range entries {
		if e.IsDir() && !alive(e.Name()) {
			dead = append(dead, e.Name())
		}
	}
	// A dead judge's owner lock goes last, and stays while anything else of
	// its judge does: the next clean-up then finds a free lock, not none.
	var errs []error
	var failed []string
	for _, name := range locksLast(dead) {
		if lockOf, ok := strings.CutSuffix(name, ownerLockSuffix); ok && slices.ContainsFunc(failed, func(f string) bool {
			return strings.HasPrefix(f, lockOf+"-")
		}) {
			continue
		}
		if err := remove(filepath.Join(parent, name)); err != nil {
			errs = append(errs, err)
			failed = append(failed, name)
		}
	}
	return errs
}

// locksLast is names with the owner locks moved to the end.
func locksLast(names []string) []string {
	var others, locks []string
	for _, n := range names {
		if strings.HasSuffix(n, ownerLockSuffix) {
			locks = append(locks, n)
		} else {
			others = append(others, n)
		}
	}
	return append(others, locks...)
}

// leakedPrefix names an empty stale cgroup the kernel would not remove,
// set aside so that it blocks no one: no judge owns such a name (see
// entryTag), and each later clean-up tries once to remove it (removeLeaked).
const leakedPrefix = "leaked-"

// rmdirCgroup removes an empty cgroup dir; tests replace it.
var rmdirCgroup = func(dir string) error { return syscall.Rmdir(dir) }

// removeLeaked removes the set-aside cgroups under parent (named with
// prefix) that the kernel now lets go of, leaf first. What it still refuses
// stays set aside for the next clean-up: it is empty and harms no run, so
// it is no error.
func removeLeaked(parent, prefix string) {
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
			removeTreeOnce(filepath.Join(parent, e.Name()))
		}
	}
}

// removeTreeOnce removes the cgroup dir and the cgroups in it, leaf first,
// one try each, and reports whether dir is gone.
func removeTreeOnce(dir string) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() && !removeTreeOnce(filepath.Join(dir, e.Name())) {
			return false
		}
	}
	err := rmdirCgroup(dir)
	return err == nil || errors.Is(err, os.ErrNotExist)
}

// killCgroupTree SIGKILLs every process of the cgroup dir and of the
// cgroups in it until none is left, and removes them leaf first (a cgroup
// that holds another cannot be removed), each one that the kernel keeps
// busy though empty renamed aside.
func killCgroupTree(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	var children []string
	for _, e := range entries {
		if e.IsDir() {
			children = append(children, e.Name())
		}
	}
	// An owner lock inside (a judge's group holds the judge's) goes last,
	// and stays while anything else does (see removeDead).
	var errs []error
	for _, name := range locksLast(children) {
		if len(errs) > 0 && strings.HasSuffix(name, ownerLockSuffix) {
			break
		}
		if err := killCgroupTree(filepath.Join(dir, name)); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return killCgroupDir(dir)
}

// killCgroupDir SIGKILLs every process listed in dir until none is left,
// then removes dir, or renames it aside when the kernel keeps it busy.
func killCgroupDir(dir string) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("sandbox: stale cgroup %s: %w", dir, err)
		}
		pids := strings.Fields(string(data))
		if len(pids) == 0 {
			break
		}
		for _, p := range pids {
			if pid, err := strconv.Atoi(p); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if time.Now().After(deadline) {
			return fixError(fmt.Errorf("sandbox: stale cgroup %s: processes survive SIGKILL", dir),
				"find them with `cat "+filepath.Join(dir, "cgroup.procs")+"`; once they are gone (a reboot ends them), `sudo rmdir "+dir+"`")
		}
		time.Sleep(5 * time.Millisecond)
	}
	err := destroyRetrying(func() error { return rmdirCgroup(dir) })
	if err == nil {
		return nil
	}
	// Empty yet not removable (seen here: "device or resource busy" for a
	// cgroup v1 dir long after its last task). It holds no process, so it is
	// set aside under a name no judge claims rather than make every later
	// runner fail, which under --sandbox auto would mean a weaker sandbox.
	// The name is unique: an earlier set-aside of the same name may still
	// be there.
	var rerr error
	for range 3 {
		aside := filepath.Join(filepath.Dir(dir), leakedPrefix+filepath.Base(dir)+"-"+randomHex(4))
		if rerr = os.Rename(dir, aside); rerr == nil || errors.Is(rerr, os.ErrNotExist) {
			return nil
		}
	}
	return fixError(fmt.Errorf("sandbox: remove stale cgroup %s: %w (and set it aside: %w)", dir, err, rerr),
		"`sudo rmdir "+dir+"` once the kernel lets go of it (a reboot does)")
}
