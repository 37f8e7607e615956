//go:build linux

package sandbox

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// cpuSet is cpus as an affinity mask, nil when cpus is empty. Every CPU
// must be one this process may run on: the kernel would silently drop the
// others, and a program meant for CPU 3 would run elsewhere.
func cpuSet(cpus []int) (*unix.CPUSet, error) {
	if len(cpus) == 0 {
		return nil, nil
	}
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return nil, fmt.Errorf("sandbox: reading this process's CPUs: %w", err)
	}
	var set unix.CPUSet
	for _, c := range cpus {
		if c < 0 || c >= len(set)*64 || !allowed.IsSet(c) {
			return nil, fmt.Errorf("sandbox: CPUs: CPU %d is not one this process may run on (%s)", c, cpuList(&allowed))
		}
		set.Set(c)
	}
	return &set, nil
}

// cpuList is set as a list of CPU numbers ("0,1,3").
func cpuList(set *unix.CPUSet) string {
	var b strings.Builder
	for c := 0; c < len(set)*64; c++ {
		if set.IsSet(c) {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(c))
		}
	}
	return b.String()
}

// startOnCPUs runs start (which forks) on a locked thread whose affinity is
// set for the call, so the child is born with it; the thread's own mask is
// restored afterwards. With a nil set it just calls start.
func startOnCPUs(set *unix.CPUSet, start func() error) error {
	if set == nil {
		return start()
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var saved unix.CPUSet
	if err := unix.SchedGetaffinity(0, &saved); err != nil {
		return fmt.Errorf("sandbox: reading the starting thread's CPUs: %w", err)
	}
	if err := unix.SchedSetaffinity(0, set); err != nil {
		return fmt.Errorf("sandbox: CPUs %s: %w", cpuList(set), err)
	}
	err := start()
	if rerr := unix.SchedSetaffinity(0, &saved); rerr != nil && err == nil {
		// A thread left pinned would pin whatever the Go runtime runs on it.
		panic(fmt.Sprintf("sandbox: restoring the starting thread's CPUs: %v", rerr))
	}
	return err
}
