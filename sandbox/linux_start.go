//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"

	"github.com/criyle/go-sandbox/pkg/forkexec"
	"golang.org/x/sys/unix"
)

// startInNewPIDNamespace starts the placeholder as PID 1 of a new PID
// namespace and the program as PID 2 in it, both in the network namespace
// net says, and both in p.cg from birth (see cgroupEntry). unshare(CLONE_NEWPID), setns, Landlock and the cgroup move
// of a single thread change the calling thread (and its children) only, so
// they run on a thread of its own that is never given back to the Go
// scheduler: the goroutine ends locked, and the runtime then ends the
// thread (or, if it is the process's main thread, parks it for good).
func startInNewPIDNamespace(placeholder, program *forkexec.Runner, net netPlan, p *linuxProcess) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: see above
		entry, err := prepareStartThread(p.cg)
		if err != nil {
			done <- err
			return
		}
		err = startChildren(entry, placeholder, program, net, p)
		// The moves out follow the moves in within a grace period, so they
		// cost little, and then no judge thread is left in the cgroup.
		done <- errors.Join(err, entry.moveOut())
	}()
	return <-done
}

// prepareStartThread gives the calling (locked, throw-away) thread a new
// PID namespace for its children and a new network namespace (its own and
// its children's), and moves it into cg.
func prepareStartThread(cg *sandboxCgroup) (*cgroupEntry, error) {
	if err := unix.Unshare(unix.CLONE_NEWPID | unix.CLONE_NEWNET); err != nil {
		return nil, fmt.Errorf("unshare pid and network namespaces: %w", err)
	}
	return cg.enter(unix.Gettid())
}

// startChildren runs on a thread made by prepareStartThread. The caller
// then moves the thread out of the cgroup or lets it end there (see
// cgroupEntry). Neither child has a SyncFunc, so go-sandbox starts both
// with vfork (CLONE_VM|CLONE_VFORK) instead of copying the judge's page
// tables (a full fork of the judge costs ~1.7 ms more here).
func startChildren(entry *cgroupEntry, placeholder, program *forkexec.Runner, net netPlan, p *linuxProcess) error {
	if err := net.apply(p); err != nil {
		return err
	}
	entry.bind(placeholder, program)
	if p.cpus != nil {
		// The thread is thrown away after the start, so its mask is not
		// restored; both children are born with it.
		if err := unix.SchedSetaffinity(0, p.cpus); err != nil {
			return fmt.Errorf("CPUs %s: %w", cpuList(p.cpus), err)
		}
	}
	pid, err := placeholder.Start()
	if err != nil {
		return fmt.Errorf("namespace placeholder: %w", err)
	}
	if p.init, err = os.FindProcess(pid); err != nil {
		syscall.Kill(pid, syscall.SIGKILL)
		return err
	}
	pid, err = startProgram(program)
	if err != nil {
		return err
	}
	// vfork: Start returns once the program's execve has begun.
	p.started = time.Now()
	p.pid = pid
	p.main, err = os.FindProcess(pid)
	return err
}

// startProgram starts program and names the setup step that failed.
// go-sandbox execs Args[0] as the path and passes it as argv[0] too, so
// argv[0] is the resolved path (Python finds its prefix from it).
func startProgram(program *forkexec.Runner) (int, error) {
	pid, err := program.Start()
	if err != nil {
		var ce forkexec.ChildError
		if errors.As(err, &ce) {
			return 0, fmt.Errorf("sandbox setup failed at %s: %w", ce.Location, ce.Err)
		}
		return 0, err
	}
	return pid, nil
}
