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
