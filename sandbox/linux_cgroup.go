//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/criyle/go-sandbox/pkg/cgroup"
	"golang.org/x/sys/unix"
)

// cgroupRoot is where the controllers are mounted.
const cgroupRoot = "/sys/fs/cgroup"

// cgroupParentName is the well-known parent of every sandbox cgroup, made
// under the judge's own cgroup of each controller, so leftovers are easy to
// recognise and a judge's sandboxes stay inside the judge's own limits.
const cgroupParentName = "tether"

// sandboxCPUWeight is every sandbox's CPU weight (cgroup v2 cpu.weight;
// v1 cpu.shares is its v1 equivalent, v1CPUShares): the default, written so
// that each sandbox, whatever it forks, competes as one equal group. Without
// a cpu cgroup of its own a sandbox sits in the judge's task group, where
// each child that calls setsid() gets a scheduler autogroup and a full share
// of its own, so ~60 of them starve the other side of a run.
const (
	sandboxCPUWeight = 100
	v1CPUShares      = 1024
)

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

// sandboxCgroup is the cgroup of one sandbox. It is used by one owner: the
// process that made it reads it and destroys it.
type sandboxCgroup struct {
	v2        bool
	mem       cgroup.Cgroup // also pids and cpu on v2
	pids, cpu cgroup.Cgroup // cpu: the CPU time (cpuacct on v1)
	all       []cgroup.Cgroup
	memDir    string   // host dir of the memory controller, for the OOM counter
	cpuDir    string   // host dir of the cpu controller, for the weight
	cpusetDir string   // host dir of the cpuset controller; "" when not used
	dirs      []string // every host dir of this cgroup, one per hierarchy
	homes     []string // v1: the judge's own cgroup dir of each of dirs (see cgroupEntry.moveOut)
}

// newCgroup makes the cgroup named name (fails if it exists) and sets its limits.
func (l *cgroupLayout) newCgroup(name string, memory int64, pids, millicores int, cpus *unix.CPUSet) (*sandboxCgroup, error) {
	cg, err := l.makeCgroup(name)
	if err != nil {
		return nil, err
	}
	if err := cg.setLimits(memory, pids, millicores, cpus); err != nil {
		cg.destroy()
		return nil, err
	}
	return cg, nil
}

// makeCgroup makes the cgroup named name (fails if it exists), with its CPU
// weight and no limits.
func (l *cgroupLayout) makeCgroup(name string) (*sandboxCgroup, error) {
	cg := &sandboxCgroup{v2: l.v2}
	if err := l.fillCgroup(cg, name); err != nil {
		// What was made of it so far (cg.all) goes again; cg itself is
		// never nil here, whatever step failed.
		return nil, errors.Join(err, cg.destroy())
	}
	return cg, nil
}

// fillCgroup makes the directories of cg, adding each to cg as it is made
// so that the caller can remove them when a later one fails.
func (l *cgroupLayout) fillCgroup(cg *sandboxCgroup, name string) error {
	if l.v2 {
		dir := filepath.Join(cgroupRoot, l.v2Base, name)
		c, err := cgroup.New(filepath.Join(l.v2Base, name), &cgroup.Controllers{Memory: true, Pids: true, CPU: true, CPUSet: l.cpuset})
		if err != nil {
			return fmt.Errorf("cgroup v2: make %s: %w%s", dir, err, v2Hint(err))
		}
		if c.Existing() {
			return fmt.Errorf("cgroup v2: %s already exists", dir)
		}
		cg.mem, cg.pids, cg.cpu, cg.all = c, c, c, []cgroup.Cgroup{c}
		cg.memDir, cg.cpuDir = dir, dir
		if l.cpuset {
			cg.cpusetDir = dir
		}
		cg.dirs = []string{dir}
		return cg.setWeight()
	}
	for _, h := range l.hier {
		made, err := cgroup.New(filepath.Join(h.parent, name), &h.ct)
		if err != nil {
			return fmt.Errorf("cgroup v1: make %s/%s: %w", h.mount, name, err)
		}
		if made.Existing() {
			return fmt.Errorf("cgroup v1: %s/%s already exists", h.mount, name)
		}
		dir := filepath.Join(cgroupRoot, h.mount, h.parent, name)
		cg.all = append(cg.all, made)
		cg.dirs = append(cg.dirs, dir)
		cg.homes = append(cg.homes, filepath.Join(cgroupRoot, h.mount, filepath.Dir(h.parent)))
		if h.ct.Memory {
			cg.mem, cg.memDir = made, dir
		}
		if h.ct.Pids {
			cg.pids = made
		}
		if h.ct.CPUAcct {
			cg.cpu = made
		}
		if h.ct.CPU {
			cg.cpuDir = dir
		}
		if h.ct.CPUSet {
			cg.cpusetDir = dir
		}
	}
	return cg.setWeight()
}

// probe makes a sandbox cgroup with limits and removes it: what every
// start needs, tried once up front so that a machine where it fails says
// so when the runner is made, not at the first start.
func (l *cgroupLayout) probe() error {
	cg, err := l.newCgroup(ownerTag+"-probe", 64<<20, 8, 0, nil)
	if err != nil {
		return err
	}
	return cg.destroy()
}

// setWeight writes the sandbox's CPU weight (see sandboxCPUWeight).
func (cg *sandboxCgroup) setWeight() error {
	file, value := "cpu.shares", strconv.Itoa(v1CPUShares)
	if cg.v2 {
		file, value = "cpu.weight", strconv.Itoa(sandboxCPUWeight)
	}
	if err := os.WriteFile(filepath.Join(cg.cpuDir, file), []byte(value), 0o644); err != nil {
		return fmt.Errorf("cgroup: cpu weight: %w", err)
	}
	return nil
}

// setLimits sets the memory (and swap), pids and CPU bandwidth
// (Limits.CPUMillicores) limits, 0 leaving one unset, and confines the
// sandbox to cpus where the cpuset controller is used (nil leaves every CPU
// the judge may use).
func (cg *sandboxCgroup) setLimits(memory int64, pids, millicores int, cpus *unix.CPUSet) error {
	if millicores > 0 {
		if err := cg.setCPUQuota(millicores); err != nil {
			return err
		}
	}
	if cpus != nil && cg.cpusetDir != "" {
		// A program can change its own affinity (sched_setaffinity) but
		// not its cpuset: the kernel keeps every process of the cgroup,
		// and whatever affinity it asks for, within these CPUs.
		if err := os.WriteFile(filepath.Join(cg.cpusetDir, "cpuset.cpus"), []byte(cpuList(cpus)), 0o644); err != nil {
			return fmt.Errorf("cgroup: cpuset CPUs %s: %w", cpuList(cpus), err)
		}
	}
	if memory > 0 {
		if err := cg.mem.SetMemoryLimit(uint64(memory)); err != nil {
			return fmt.Errorf("cgroup: memory limit: %w", err)
		}
		// Without a swap limit a program could page out past the memory limit.
		swapFile := "memory.memsw.limit_in_bytes"
		value := strconv.FormatInt(memory, 10)
		if cg.v2 {
			swapFile, value = "memory.swap.max", "0"
		}
		if _, err := os.Stat(filepath.Join(cg.memDir, swapFile)); err == nil {
			if err := os.WriteFile(filepath.Join(cg.memDir, swapFile), []byte(value), 0o644); err != nil {
				return fmt.Errorf("cgroup: swap limit: %w", err)
			}
		}
	}
	if pids > 0 {
		if err := cg.pids.SetProcLimit(uint64(pids)); err != nil {
			return fmt.Errorf("cgroup: pids limit: %w", err)
		}
	}
	return nil
}

// cpuPeriodMicros is the period of the CPU quota (the kernel's default).
const cpuPeriodMicros = 100_000

// setCPUQuota gives the sandbox millicores/1000 of a CPU per period: a
// quota the scheduler enforces on the whole group, not a pin to CPUs.
func (cg *sandboxCgroup) setCPUQuota(millicores int) error {
	if millicores < MinCPUMillicores {
		return fmt.Errorf("sandbox: a CPU cap of %d millicores is below the smallest the kernel keeps, %d", millicores, MinCPUMillicores)
	}
	quota := millicores * cpuPeriodMicros / 1000
	var err error
	if cg.v2 {
		err = os.WriteFile(filepath.Join(cg.cpuDir, "cpu.max"), []byte(fmt.Sprintf("%d %d", quota, cpuPeriodMicros)), 0o644)
	} else {
		err = os.WriteFile(filepath.Join(cg.cpuDir, "cpu.cfs_period_us"), []byte(strconv.Itoa(cpuPeriodMicros)), 0o644)
		if err == nil {
			err = os.WriteFile(filepath.Join(cg.cpuDir, "cpu.cfs_quota_us"), []byte(strconv.Itoa(quota)), 0o644)
		}
	}
	if err != nil {
		return fmt.Errorf("cgroup: CPU quota of %d millicores: %w", millicores, err)
	}
	return nil
}

// cpuUsage is the CPU time used by every process of the sandbox.
func (cg *sandboxCgroup) cpuUsage() (time.Duration, error) {
	ns, err := cg.cpu.CPUUsage()
	return time.Duration(ns), err
}

// memoryPeak is the high-water mark of the sandbox's memory. go-sandbox's
// v1 call reads memory.max_usage_in_bytes; on v2 it reads memory.peak, which
// kernels before 5.19 lack (then 0, unknown).
func (cg *sandboxCgroup) memoryPeak() int64 {
	peak, err := cg.mem.MemoryMaxUsage()
	if err != nil {
		return 0
	}
	return int64(peak)
}

// oomKills counts the processes the kernel killed for the memory limit.
func (cg *sandboxCgroup) oomKills() int {
	file := "memory.oom_control"
	if cg.v2 {
		file = "memory.events"
	}
	data, err := os.ReadFile(filepath.Join(cg.memDir, file))
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "oom_kill "); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// destroy removes the cgroup directories. The kernel refuses (EBUSY) while
// an exiting process is still being torn down, so it retries for a while.
func (cg *sandboxCgroup) destroy() error {
	var errs []error
	for _, c := range cg.all {
		if err := destroyRetrying(c.Destroy); err != nil {
			errs = append(errs, fmt.Errorf("cgroup: remove %v: %w", c, err))
		}
	}
	cg.all = nil
	return errors.Join(errs...)
}

func destroyRetrying(destroy func() error) error {
	delay := time.Millisecond
	deadline := time.Now().Add(2 * time.Second)
	for {
		err := destroy()
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(delay)
		delay = min(2*delay, 50*time.Millisecond)
	}
}
