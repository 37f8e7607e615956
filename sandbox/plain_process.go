package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// plainProcess is one child of the "none" runner. Kill and Close may be
// called from any goroutine; Wait once (Close waits through the same once).
type plainProcess struct {
	cmd     *exec.Cmd
	limits  Limits
	started time.Time
	workDir string // private work dir, removed by Close; "" when none

	stdPipes

	waitOnce sync.Once
	usage    Usage
	waitErr  error
	exited   chan struct{} // closed when the main process has been reaped

	closeOnce sync.Once
	closeErr  error
}

// cleanupFailedStart undoes a Start that did not complete.
func (p *plainProcess) cleanupFailedStart() {
	if p.cmd != nil && p.cmd.Process != nil {
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		p.cmd.Wait()
	}
	p.closeChildEnds()
	p.closeParentEnds()
	if p.workDir != "" {
		os.RemoveAll(p.workDir)
	}
}

func (p *plainProcess) Pid() int { return p.cmd.Process.Pid }

// Kill sends SIGKILL to the whole process group, so grandchildren die too.
func (p *plainProcess) Kill() error {
	// After the leader is reaped the group may still hold grandchildren, so
	// the group is signalled either way; ESRCH means nothing was left.
	err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// Wait reaps the main process and reports its usage. A non-zero exit is not
// an error: it is in Usage.ExitCode / Usage.Signal.
func (p *plainProcess) Wait() (Usage, error) {
	p.waitOnce.Do(p.reap)
	return p.usage, p.waitErr
}

func (p *plainProcess) reap() {
	defer close(p.exited)
	err := p.cmd.Wait()
	// What the program left behind dies with it, as in the linux runner's
	// pid namespace: a leftover holding stdout open would keep the judge
	// from seeing the side gone.
	p.Kill()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		p.waitErr = fmt.Errorf("sandbox: wait for pid %d: %w", p.cmd.Process.Pid, err)
	}
	p.usage = usageOf(p.cmd.ProcessState, time.Since(p.started), p.limits)
}

func usageOf(st *os.ProcessState, wall time.Duration, l Limits) Usage {
	u := Usage{Wall: wall}
	if st == nil {
		return u
	}
	u.ExitCode = st.ExitCode()
	u.CPU = st.UserTime() + st.SystemTime()
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		u.MemoryPeak = ru.Maxrss * 1024 // Linux reports KiB
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		u.Signal = int(ws.Signal())
		u.ExitCode = -1
		// RLIMIT_CPU: SIGXCPU at the soft limit, SIGKILL at the hard one.
		if l.CPUTime > 0 && (ws.Signal() == syscall.SIGXCPU ||
			(ws.Signal() == syscall.SIGKILL && u.CPU >= l.CPUTime)) {
			u.CPUExceeded = true
		}
	}
	return u
}

// Close kills what still runs, reaps the main process, closes the parent
// pipe ends (unblocking any reader) and removes the work dir. Safe twice.
func (p *plainProcess) Close() error {
	p.closeOnce.Do(func() {
		p.Kill()
		p.waitOnce.Do(p.reap)
		var errs []error
		if err := p.closeParentEnds(); err != nil {
			errs = append(errs, err)
		}
		if p.workDir != "" {
			if err := os.RemoveAll(p.workDir); err != nil {
				errs = append(errs, fmt.Errorf("sandbox: remove work dir: %w", err))
			}
		}
		p.closeErr = errors.Join(errs...)
	})
	return p.closeErr
}
