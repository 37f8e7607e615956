//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Every cgroup and temp dir a linux runner makes is named
// "<judge pid>-<judge start time>-<sequence>" (temp dirs with the prefix
// tempPrefix), so that a later judge can tell what a dead one left behind —
// its pid no longer runs with that start time — from what a live one uses.
const tempPrefix = "tether-sbx-"

// ownerTag names this judge process: pid and start time (clock ticks since
// boot, field 22 of /proc/PID/stat), unique across pid reuse.
var ownerTag = func() string {
	pid := os.Getpid()
	return fmt.Sprintf("%d-%d", pid, processStartTime(pid))
}()

// processStartTime is 0 when the process does not exist.
func processStartTime(pid int) uint64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces; fields count from its ")".
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0
	}
	fields := strings.Fields(string(data[i+1:]))
	const startTimeField = 22 - 3 // fields[0] is field 3
	if len(fields) <= startTimeField {
		return 0
	}
	v, _ := strconv.ParseUint(fields[startTimeField], 10, 64)
	return v
}

// ownerAlive reports whether the judge that made an entry named name still
// runs. Names that do not follow the scheme are not ours: treated as alive.
func ownerAlive(name string) bool {
	parts := strings.SplitN(name, "-", 3)
	if len(parts) != 3 {
		return true
	}
	pid, err1 := strconv.Atoi(parts[0])
	start, err2 := strconv.ParseUint(parts[1], 10, 64)
	if err1 != nil || err2 != nil {
		return true
	}
	return processStartTime(pid) == start
}

// removeStale kills the processes of and removes every sandbox cgroup under
// parents, and every temp dir under tempRoot ("": none), whose judge is gone. It is
// what makes a run after a `kill -9` of the judge clean.
func removeStale(parents []string, tempRoot string) error {
	errs := removeDead(parents, ownerAlive, killCgroupDir)
	if tempRoot != "" {
		alive := func(name string) bool {
			tag, ok := strings.CutPrefix(name, tempPrefix)
			return !ok || ownerAlive(tag)
		}
		errs = append(errs, removeDead([]string{tempRoot}, alive, func(dir string) error {
			if err := os.RemoveAll(dir); err != nil {
				return fmt.Errorf("sandbox: remove stale %s: %w", filepath.Base(dir), err)
			}
			return nil
		})...)
	}
	return errors.Join(errs...)
}

// removeStaleJudgeGroups removes the per-judge cgroups (judgeCPUGroup)
// under each of homes whose judge is gone, with the sandbox cgroups in them.
func removeStaleJudgeGroups(homes []string) error {
	alive := func(name string) bool {
		tag, ok := strings.CutPrefix(name, cgroupParentName+"-")
		return !ok || ownerAlive(tag+"-0") // a judge's tag, without a sandbox number
	}
	return errors.Join(removeDead(homes, alive, func(group string) error {
		return errors.Join(removeStale([]string{group}, ""), killCgroupDir(group))
	})...)
}

// removeDead calls remove on each dir under parents whose judge, as alive
// tells from its name, is gone, and returns the errors. A parent that does
// not exist holds none.
func removeDead(parents []string, alive func(name string) bool, remove func(dir string) error) []error {
	var errs []error
	for _, parent := range parents {
		entries, err := os.ReadDir(parent)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
		for _, e := range entries {
			if !e.IsDir() || alive(e.Name()) {
				continue
			}
			if err := remove(filepath.Join(parent, e.Name())); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}

// leakedPrefix names an empty stale cgroup the kernel would not remove; no
// judge owns such a name (see ownerAlive), so none tries again.
const leakedPrefix = "leaked-"

// rmdirCgroup removes an empty cgroup dir; tests replace it.
var rmdirCgroup = func(dir string) error { return syscall.Rmdir(dir) }

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
			return fmt.Errorf("sandbox: stale cgroup %s: processes survive SIGKILL", dir)
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
	// runner fail, which under --sandbox auto would mean no sandbox at all.
	aside := filepath.Join(filepath.Dir(dir), leakedPrefix+filepath.Base(dir))
	if rerr := os.Rename(dir, aside); rerr != nil {
		return fmt.Errorf("sandbox: remove stale cgroup %s: %w (and set it aside: %w)", dir, err, rerr)
	}
	return nil
}
