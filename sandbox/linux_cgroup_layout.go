//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/criyle/go-sandbox/pkg/cgroup"
)

// cgroupRoot is where the controllers are mounted.
const cgroupRoot = "/sys/fs/cgroup"

// cgroupParentName is the well-known parent of every sandbox cgroup, made
// under the judge's own cgroup of each controller, so leftovers are easy to
// recognise and a judge's sandboxes stay inside the judge's own limits.
const cgroupParentName = "tether"

// v1Hierarchy is one cgroup v1 hierarchy the runner uses: one or more
// controllers mounted together (often cpu and cpuacct), and the parent of
// the sandbox cgroups in it.
//
// In the hierarchy of the cpu controller the parent is the judge's own
// (judgeCPUGroup), beside the judge's cgroup rather than in the "tether"
// folder every judge on the machine shares: CPU weights divide a parent's
// share among its children, so one shared folder would give all the
// sandboxes of every judge together the share of one process group.
// With a group per judge, the sandboxes of a judge together weigh as the
// judge's own processes did when they ran among them (one autogroup).
type v1Hierarchy struct {
	ct     cgroup.Controllers // the controllers of it the runner uses
	mount  string             // a controller name: its dir under cgroupRoot
	parent string             // parent prefix relative to the hierarchy root
	// perJudge: parent is judgeCPUGroup in judgeHome (the judge's own
	// cgroup, relative to the hierarchy root), not the shared folder.
	perJudge  bool
	judgeHome string
}

// judgeCPUGroup names this judge's parent in the cpu hierarchy (see
// v1Hierarchy); a dead judge's is removed by the next runner
// (removeStaleJudgeGroups).
var judgeCPUGroup = cgroupParentName + "-" + ownerTag

// neededV1 are the cgroup v1 controllers the linux runner needs: memory
// (limit, peak, OOM count), pids (fork bombs), cpuacct (CPU time) and cpu
// (a CPU share per sandbox). cpuset (CPU placement a program cannot undo)
// is used where it is offered.
var neededV1 = []string{cgroup.Memory, cgroup.Pids, cgroup.CPUAcct, cgroup.CPU}

// cgroupLayout says where the sandbox cgroups of this judge live. On cgroup
// v1 every hierarchy has its own tree and the judge may sit at a different
// path in each (a memory cgroup of its own, the root of the others), so the
// parent is kept per hierarchy; on v2 there is one path.
type cgroupLayout struct {
	v2     bool
	hier   []v1Hierarchy // v1
	v2Base string        // v2: parent prefix relative to cgroupRoot
	// cpuset: sandboxes get a cpuset cgroup, so Spec.CPUs is enforced by
	// the kernel rather than by an affinity the program could change.
	cpuset bool
}

// detectCgroups finds the judge's own cgroup of each needed controller and
// checks that a child can be made there. The error names what is missing.
func detectCgroups() (*cgroupLayout, error) {
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	l := &cgroupLayout{v2: cgroup.DetectType() == cgroup.TypeV2}
	lines := strings.Split(strings.TrimSpace(string(own)), "\n")
	if l.v2 {
		var own string
		for _, line := range lines {
			if p, ok := strings.CutPrefix(line, "0::"); ok {
				own = strings.TrimPrefix(p, "/")
			}
		}
		home, err := v2JudgeHome(own)
		if err != nil {
			return nil, err
		}
		l.v2Base = filepath.Join(home, cgroupParentName)
		controllers, err := os.ReadFile(filepath.Join(cgroupRoot, home, "cgroup.controllers"))
		if err != nil {
			return nil, fmt.Errorf("cgroup v2: %w", err)
		}
		have := strings.Fields(string(controllers))
		for _, c := range []string{"memory", "pids", "cpu"} {
			if !containsString(have, c) {
				return nil, fmt.Errorf("cgroup v2: controller %q is not available to this process", c)
			}
		}
		l.cpuset = containsString(have, "cpuset")
		return l, nil
	}
	found := map[string]bool{}
	for _, line := range lines {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		home := strings.TrimPrefix(parts[2], "/")
		h := v1Hierarchy{parent: filepath.Join(home, cgroupParentName)}
		if containsString(strings.Split(parts[1], ","), cgroup.CPU) {
			h.parent, h.perJudge, h.judgeHome = filepath.Join(home, judgeCPUGroup), true, home
		}
		for _, c := range strings.Split(parts[1], ",") {
			if !containsString(neededV1, c) && c != cgroup.CPUSet {
				continue
			}
			if c == cgroup.CPUSet && !cpusetUsable(h.parent) {
				continue
			}
			h.ct.Set(c, true)
			if h.mount == "" {
				h.mount = c
			}
			found[c] = true
		}
		if h.mount == "" {
			continue
		}
		if err := os.MkdirAll(filepath.Join(cgroupRoot, h.mount, h.parent), 0o755); err != nil {
			return nil, fmt.Errorf("cgroup v1: %s controller not writable: %w", h.mount, err)
		}
		l.hier = append(l.hier, h)
	}
	for _, c := range neededV1 {
		if !found[c] {
			return nil, fmt.Errorf("cgroup v1: no %s controller", c)
		}
	}
	l.cpuset = found[cgroup.CPUSet]
	return l, nil
}

// judgeLeafName is the child cgroup that a judge on cgroup v2 moves the
// processes of its own cgroup into, unless that is the root: the kernel
// lets a non-root cgroup either hold processes or hand controllers to its
// children, not both ("no internal processes"), and the sandbox cgroups
// under it need the controllers. A judge whose cgroup is named so (moved
// there by an earlier runner, or started by a judge there) is at home in
// the parent.
const judgeLeafName = "tether-judge"

// v2JudgeHome returns the cgroup (relative to cgroupRoot) under which the
// judge's sandbox cgroups go, given the judge's own cgroup own, and moves
// the processes of own into judgeLeafName when own must delegate.
func v2JudgeHome(own string) (string, error) {
	if filepath.Base(own) == judgeLeafName {
		return strings.TrimSuffix(strings.TrimSuffix(own, judgeLeafName), "/"), nil
	}
	if own == "" {
		return "", nil // the root may hold processes and delegate
	}
	dir := filepath.Join(cgroupRoot, own)
	enabled, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	if err != nil {
		return "", fmt.Errorf("cgroup v2: %w", err)
	}
	if len(strings.Fields(string(enabled))) > 0 {
		return own, nil // it delegates already, so it holds no process
	}
	leaf := filepath.Join(dir, judgeLeafName)
	if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("cgroup v2: make %s for the judge's processes: %w", leaf, err)
	}
	// Processes forked meanwhile are born in own: move until none is left.
	for range 100 {
		data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		if err != nil {
			return "", fmt.Errorf("cgroup v2: %w", err)
		}
		pids := strings.Fields(string(data))
		if len(pids) == 0 {
			return own, nil
		}
		for _, pid := range pids {
			err := os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(pid), 0o644)
			if err != nil && !errors.Is(err, syscall.ESRCH) {
				return "", fmt.Errorf("cgroup v2: move process %s from %s into %s: %w", pid, dir, leaf, err)
			}
		}
	}
	return "", fmt.Errorf("cgroup v2: %s keeps getting new processes; run the judge in a cgroup of its own (systemd-run --scope -p Delegate=yes tether ...)", dir)
}

// v2Hint says what to do about an error from making a cgroup v2 dir.
func v2Hint(err error) string {
	switch {
	case errors.Is(err, syscall.EBUSY):
		return " (a cgroup that holds processes cannot give controllers to its children: run the judge in a cgroup of its own, e.g. systemd-run --scope -p Delegate=yes tether ...)"
	case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.EINVAL), errors.Is(err, syscall.EOPNOTSUPP):
		return " (a controller is not available there: enable it in the parent's cgroup.subtree_control, e.g. echo '+cpu +memory +pids' | sudo tee /sys/fs/cgroup/cgroup.subtree_control)"
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EROFS):
		return " (the cgroup tree is not writable: run the judge as root, outside a container that mounts /sys/fs/cgroup read-only)"
	}
	return ""
}

// cpusetUsable reports whether the v1 cpuset hierarchy can hold the
// sandbox cgroups under parent: it is optional (the affinity is the
// fallback), so any failure only means it is not used.
func cpusetUsable(parent string) bool {
	return os.MkdirAll(filepath.Join(cgroupRoot, cgroup.CPUSet, parent), 0o755) == nil
}

// judgeGroupHomes lists the host directories that hold the judges' own
// parents (judgeCPUGroup), where dead judges' are found.
func (l *cgroupLayout) judgeGroupHomes() []string {
	var dirs []string
	for _, h := range l.hier {
		if h.perJudge {
			dirs = append(dirs, filepath.Join(cgroupRoot, h.mount, h.judgeHome))
		}
	}
	return dirs
}

// parentDirs lists the host directories holding this judge's sandbox cgroups.
func (l *cgroupLayout) parentDirs() []string {
	if l.v2 {
		return []string{filepath.Join(cgroupRoot, l.v2Base)}
	}
	dirs := make([]string, 0, len(l.hier))
	for _, h := range l.hier {
		dirs = append(dirs, filepath.Join(cgroupRoot, h.mount, h.parent))
	}
	return dirs
}

// probe makes a sandbox cgroup with limits and removes it: what every
// start needs, tried once up front so that a machine where it fails says
// so when the runner is made, not at the first start. Its name is the
// process's next sandbox number, so runners made at once don't collide.
func (l *cgroupLayout) probe() error {
	cg, err := l.newCgroup(fmt.Sprintf("%s-probe-%d", ownerTag, sandboxSeq.Add(1)), 64<<20, 8, 0, nil)
	if err != nil {
		return err
	}
	return cg.destroy()
}
