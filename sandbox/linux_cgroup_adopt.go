//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/criyle/go-sandbox/pkg/forkexec"
	"golang.org/x/sys/unix"
)

// cgroupEntry makes every process that one start thread starts a member
// of a sandbox cgroup from its birth, so that no process of the sandbox
// ever runs outside it and no SyncFunc (which forces a full fork) is needed
// to move one in before its execve.
//
// On cgroup v1 the thread itself moves in (`tasks` moves a single thread,
// not the judge) and children inherit its cgroups. Every move into or out
// of a v1 cgroup takes the kernel's cgroup threadgroup lock for writing,
// and the first write after a quiet spell waits for an RCU grace period
// (~10 ms on this 2-vCPU VM); the writes that follow within a grace period
// do not. So the three moves in come in one burst, and a cold start moves
// the thread out right after the start, still within that grace period
// (moveOut). A prepared thread (linux_warm.go) moved in long before: it
// ends inside instead (done). While the thread is in, it counts against
// the pids limit, which is then stricter by one, never looser. Its CPU
// time there and that of both children's setup is in cpuacct: Start reads
// that as the baseline of Usage.CPU.
//
// On cgroup v2 the children clone straight into the cgroup
// (clone3 CLONE_INTO_CGROUP, kernel 5.7+), which takes no such lock.
//
// An entry belongs to the locked thread that made it, which must call
// done (or moveOut) and then end.
type cgroupEntry struct {
	cg  *sandboxCgroup
	tid int
	fd  int // v2: the cgroup's directory, for CLONE_INTO_CGROUP; -1 on v1
}

// enter moves the calling thread, whose id is tid, into cg (v1), or opens
// cg's directory (v2).
func (cg *sandboxCgroup) enter(tid int) (*cgroupEntry, error) {
	e := &cgroupEntry{cg: cg, tid: tid, fd: -1}
	if cg.v2 {
		fd, err := unix.Open(cg.memDir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("cgroup v2: open %s: %w", cg.memDir, err)
		}
		e.fd = fd
		return e, nil
	}
	for _, dir := range cg.dirs {
		if err := writeTask(dir, tid); err != nil {
			return nil, errors.Join(err, e.moveOut())
		}
	}
	return e, nil
}

// bind makes runners start their child in the cgroup. On v1 that is where
// the thread is, so there is nothing to do.
func (e *cgroupEntry) bind(runners ...*forkexec.Runner) {
	if e.fd >= 0 {
		for _, r := range runners {
			r.CgroupFd = uintptr(e.fd)
		}
	}
}

// done closes the directory (v2). On v1 the thread is to end inside the
// cgroup, and the runtime ends it (~0.1 ms after its goroutine): except the
// process's main thread, which the runtime parks forever instead (it
// "wedges" it), so that one moves out first (once per process at most).
func (e *cgroupEntry) done() error {
	if e.fd >= 0 {
		fd := e.fd
		e.fd = -1
		return unix.Close(fd)
	}
	if !e.cg.v2 && e.tid == os.Getpid() {
		return e.moveOut()
	}
	return nil
}

// moveOut is done, and on v1 it also moves the thread back to the judge's
// own cgroups: for a thread whose cgroup must be removed before the thread
// ends (a prepared thread that Close discards).
func (e *cgroupEntry) moveOut() error {
	if e.cg.v2 {
		return e.done()
	}
	var errs []error
	for _, home := range e.cg.homes {
		if err := writeTask(home, e.tid); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// writeTask moves thread tid into the cgroup v1 directory dir. Plain
// syscalls: os.WriteFile would register the file with the Go poller first.
func writeTask(dir string, tid int) error {
	path := filepath.Join(dir, "tasks")
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("cgroup v1: open %s: %w", path, err)
	}
	defer unix.Close(fd)
	if _, err := unix.Write(fd, []byte(strconv.Itoa(tid))); err != nil {
		return fmt.Errorf("cgroup v1: move thread %d into %s: %w", tid, dir, err)
	}
	return nil
}
