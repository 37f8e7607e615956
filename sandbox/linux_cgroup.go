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
)

// cgroupRoot is where the controllers are mounted.
const cgroupRoot = "/sys/fs/cgroup"

// cgroupParentName is the well-known parent of every sandbox cgroup, made
// under the judge's own cgroup of each controller, so leftovers are easy to
// recognise and a judge's sandboxes stay inside the judge's own limits.
const cgroupParentName = "tether"

// controllers are the cgroup controllers the linux runner needs: memory
// (limit, peak, OOM count), pids (fork bombs) and CPU accounting.
var neededControllers = []string{cgroup.Memory, cgroup.Pids, cgroup.CPUAcct}

// cgroupLayout says where the sandbox cgroups of this judge live. On cgroup
// v1 every controller is its own hierarchy and the judge may sit at a
// different path in each (a memory cgroup of its own, the root of the
// others), so the parent is kept per controller; on v2 there is one path.
type cgroupLayout struct {
	v2      bool
	parents map[string]string // controller → parent prefix relative to its hierarchy root (v1), or "" → the v2 parent
	v2Base  string            // v2: parent prefix relative to cgroupRoot
}

// detectCgroups finds the judge's own cgroup of each needed controller and
// checks that a child can be made there. The error names what is missing.
func detectCgroups() (*cgroupLayout, error) {
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	l := &cgroupLayout{v2: cgroup.DetectType() == cgroup.TypeV2, parents: map[string]string{}}
	lines := strings.Split(strings.TrimSpace(string(own)), "\n")
	if l.v2 {
		for _, line := range lines {
			if p, ok := strings.CutPrefix(line, "0::"); ok {
				l.v2Base = filepath.Join(strings.TrimPrefix(p, "/"), cgroupParentName)
			}
		}
		controllers, err := os.ReadFile(filepath.Join(cgroupRoot, filepath.Dir(l.v2Base), "cgroup.controllers"))
		if err != nil {
			return nil, fmt.Errorf("cgroup v2: %w", err)
		}
		have := strings.Fields(string(controllers))
		for _, c := range []string{"memory", "pids", "cpu"} {
			if !containsString(have, c) {
				return nil, fmt.Errorf("cgroup v2: controller %q is not available to this process", c)
			}
		}
		return l, nil
	}
	for _, line := range lines {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			l.parents[c] = filepath.Join(strings.TrimPrefix(parts[2], "/"), cgroupParentName)
		}
	}
	for _, c := range neededControllers {
		p, ok := l.parents[c]
		if !ok {
			return nil, fmt.Errorf("cgroup v1: no %s controller", c)
		}
		dir := filepath.Join(cgroupRoot, c, p)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("cgroup v1: %s controller not writable: %w", c, err)
		}
	}
	return l, nil
}

// parentDirs lists the host directories holding this judge's sandbox cgroups.
func (l *cgroupLayout) parentDirs() []string {
	if l.v2 {
		return []string{filepath.Join(cgroupRoot, l.v2Base)}
	}
	dirs := make([]string, 0, len(neededControllers))
	for _, c := range neededControllers {
		dirs = append(dirs, filepath.Join(cgroupRoot, c, l.parents[c]))
	}
	return dirs
}

// sandboxCgroup is the cgroup of one sandbox. It is used by one owner: the
// process that made it reads it and destroys it.
type sandboxCgroup struct {
	v2        bool
	mem       cgroup.Cgroup // also pids and cpu on v2
	pids, cpu cgroup.Cgroup
	all       []cgroup.Cgroup
	memDir    string   // host dir of the memory controller, for the OOM counter
	dirs      []string // every host dir of this cgroup
	homes     []string // v1: the judge's own cgroup dir of each of dirs (see cgroupEntry.moveOut)
}

// newCgroup makes the cgroup named name (fails if it exists) and sets its limits.
func (l *cgroupLayout) newCgroup(name string, memory int64, pids int) (*sandboxCgroup, error) {
	cg, err := l.makeCgroup(name)
	if err != nil {
		return nil, err
	}
	if err := cg.setLimits(memory, pids); err != nil {
		cg.destroy()
		return nil, err
	}
	return cg, nil
}

// makeCgroup makes the cgroup named name (fails if it exists), without limits.
func (l *cgroupLayout) makeCgroup(name string) (cg *sandboxCgroup, err error) {
	cg = &sandboxCgroup{v2: l.v2}
	defer func() {
		if err != nil {
			cg.destroy()
		}
	}()
	if l.v2 {
		c, err := cgroup.New(filepath.Join(l.v2Base, name), &cgroup.Controllers{Memory: true, Pids: true, CPU: true})
		if err != nil {
			return nil, fmt.Errorf("cgroup v2: make %s: %w", name, err)
		}
		cg.mem, cg.pids, cg.cpu, cg.all = c, c, c, []cgroup.Cgroup{c}
		cg.memDir = filepath.Join(cgroupRoot, l.v2Base, name)
		cg.dirs = []string{cg.memDir}
	} else {
		for _, c := range []struct {
			name string
			ct   cgroup.Controllers
			dst  *cgroup.Cgroup
		}{
			{cgroup.Memory, cgroup.Controllers{Memory: true}, &cg.mem},
			{cgroup.Pids, cgroup.Controllers{Pids: true}, &cg.pids},
			{cgroup.CPUAcct, cgroup.Controllers{CPUAcct: true}, &cg.cpu},
		} {
			made, err := cgroup.New(filepath.Join(l.parents[c.name], name), &c.ct)
			if err != nil {
				return nil, fmt.Errorf("cgroup v1: make %s/%s: %w", c.name, name, err)
			}
			if made.Existing() {
				return nil, fmt.Errorf("cgroup v1: %s/%s already exists", c.name, name)
			}
			*c.dst = made
			cg.dirs = append(cg.dirs, filepath.Join(cgroupRoot, c.name, l.parents[c.name], name))
			cg.homes = append(cg.homes, filepath.Join(cgroupRoot, c.name, filepath.Dir(l.parents[c.name])))
			cg.all = append(cg.all, made)
		}
		cg.memDir = filepath.Join(cgroupRoot, cgroup.Memory, l.parents[cgroup.Memory], name)
	}
	return cg, nil
}

// setLimits sets the memory (and swap) and pids limits; 0 leaves one unset.
func (cg *sandboxCgroup) setLimits(memory int64, pids int) error {
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
