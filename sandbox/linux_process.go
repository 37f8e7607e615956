//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// linuxProcess is one program of the linux runner. Its one background
// goroutine (reap) is started by Start and waited for by Wait or Close.
// Kill and Close may be called from any goroutine; Wait once.
type linuxProcess struct {
	limits Limits
	dir    layout
	cg     *sandboxCgroup
	cpus   *unix.CPUSet // the children's affinity (Spec.CPUs), nil for any
	uid    *uidLease    // the sandbox's own uid, held until Close; nil for a fixed one
	// outbound is the sandbox's slirp4netns (Spec.Network), stopped once
	// the sandbox's last process is gone; nil without the network.
	outbound *outboundNet

	init *os.Process // the namespace placeholder, PID 1 inside
	main *os.Process // the program, PID 2 inside
	pid  int

	stdPipes

	started time.Time // set when the program's execve has begun
	// cpuBase is the cgroup's CPU time when Start returned: the setup of
	// the sandbox (see cgroupEntry), not counted in Usage.CPU.
	cpuBase time.Duration

	// mu protects the CPU watch below.
	mu        sync.Mutex
	cpuTimer  *time.Timer
	cpuKilled bool // the CPU watch killed the sandbox
	finished  bool // reap is done with the cgroup counters

	exited  chan struct{} // closed when reap has finished; usage and waitErr are set
	usage   Usage
	waitErr error

	closeOnce sync.Once
	closeErr  error
	onClose   func() // if not nil, called at the end of Close
}

// cleanupFailedStart undoes a start that did not complete.
func (p *linuxProcess) cleanupFailedStart() {
	for _, proc := range []*os.Process{p.main, p.init} {
		if proc != nil {
			proc.Kill()
			proc.Wait()
		}
	}
	p.outbound.stop()
	p.closeChildEnds()
	p.closeParentEnds()
	if p.cg != nil {
		p.cg.destroy()
	}
	if p.dir.base != "" {
		os.RemoveAll(p.dir.base)
	}
	p.uid.release()
}

func (p *linuxProcess) Pid() int { return p.pid }

// Kill stops every process of the sandbox: killing PID 1 of a namespace
// makes the kernel kill all the others. Idempotent.
func (p *linuxProcess) Kill() error {
	var errs []error
	for _, proc := range []*os.Process{p.init, p.main} {
		if err := proc.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sandbox: kill pid %d: %w", p.pid, err)
	}
	return nil
}

// watch starts the reaper and, with a CPU limit, the CPU watch: one timer
// that fires when the cgroup could have reached the limit at the earliest
// (every CPU busy), and re-arms itself for the remaining time.
func (p *linuxProcess) watch() {
	if p.limits.CPUTime > 0 {
		p.mu.Lock()
		p.cpuTimer = time.AfterFunc(p.limits.CPUTime/time.Duration(runtime.NumCPU()), p.checkCPU)
		p.mu.Unlock()
	}
	go p.reap()
}

func (p *linuxProcess) checkCPU() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	used, err := p.cg.cpuUsage()
	used -= p.cpuBase
	if err == nil && used >= p.limits.CPUTime {
		p.cpuKilled = true
		p.Kill()
		return
	}
	next := max((p.limits.CPUTime-used)/time.Duration(runtime.NumCPU()), 5*time.Millisecond)
	p.cpuTimer.Reset(next)
}

// reap waits for the program, then ends the namespace and reads the usage.
func (p *linuxProcess) reap() {
	defer close(p.exited)
	state, err := p.main.Wait()
	wall := time.Since(p.started)
	p.init.Kill()
	p.init.Wait() // returns once every process of the namespace is gone
	p.outbound.stop()
	p.mu.Lock()
	p.finished = true
	if p.cpuTimer != nil {
		p.cpuTimer.Stop()
	}
	cpuKilled := p.cpuKilled
	p.mu.Unlock()
	if err != nil {
		p.waitErr = fmt.Errorf("sandbox: wait pid %d: %w", p.pid, err)
		return
	}
	u := Usage{Wall: wall, ExitCode: state.ExitCode()}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		u.Signal = int(ws.Signal())
	}
	if cpu, err := p.cg.cpuUsage(); err == nil {
		u.CPU = max(cpu-p.cpuBase, 0)
	} else {
		u.CPU = state.UserTime() + state.SystemTime()
	}
	u.MemoryPeak = p.cg.memoryPeak()
	if u.MemoryPeak == 0 {
		if ru, ok := state.SysUsage().(*syscall.Rusage); ok {
			u.MemoryPeak = ru.Maxrss * 1024
		}
	}
	u.MemoryExceeded = p.limits.Memory > 0 && p.cg.oomKills() > 0
	u.CPUExceeded = p.limits.CPUTime > 0 && (cpuKilled || u.Signal == int(syscall.SIGXCPU) || u.CPU >= p.limits.CPUTime)
	p.usage = u
}

// Wait implements Process.
func (p *linuxProcess) Wait() (Usage, error) {
	<-p.exited
	return p.usage, p.waitErr
}

// Close implements Process: kill, wait, close the pipes, remove the cgroup
// and the sandbox's directory. Mounts live only in the sandbox's own mount
// namespace and vanish with its last process.
func (p *linuxProcess) Close() error {
	p.closeOnce.Do(func() {
		var errs []error
		if err := p.Kill(); err != nil {
			errs = append(errs, err)
		}
		<-p.exited
		p.closeParentEnds()
		if err := p.cg.destroy(); err != nil {
			errs = append(errs, err)
		}
		if err := os.RemoveAll(p.dir.base); err != nil {
			errs = append(errs, fmt.Errorf("sandbox: remove %s: %w", p.dir.base, err))
		}
		p.uid.release() // no process of the sandbox is left

		p.closeErr = errors.Join(errs...)
		if p.onClose != nil {
			p.onClose()
		}
	})
	return p.closeErr
}
