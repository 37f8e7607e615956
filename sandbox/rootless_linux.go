//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Rootless is the "rootless" runner, for a judge without root: each
// program gets new user, PID, mount, network, IPC and UTS namespaces made
// by an unprivileged user (user namespaces), the same read-only view of the
// system, private tmpfs work dir, seccomp filter, Landlock scoping and
// no_new_privs as the linux runner, and rlimits for memory (data size),
// processes, CPU time, file size and open files. Its PID 1 is an init (the
// judge's own executable, see rootless_init_linux.go) that starts the
// program as PID 2, reaps, and reports the program's end; it is killed if
// the judge dies (parent-death signal), and the kernel then kills the rest.
//
// What it lacks next to the linux runner (docs/sandbox.md): no cgroup, so
// memory and CPU time are limited per process, not for the whole sandbox,
// peak memory is that of the largest process (rusage), and no CPU share or
// cpuset of its own; every sandbox runs as the judge's own user outside
// its namespace (the program is uid 0 inside, with no capability).
type Rootless struct {
	system       []string
	tempRoot     string
	workDirBytes int64
	python       *hostPython
	exe          string // the judge's executable: the init
	scope        bool
	// netFiles: as the linux runner's; removed by Close.
	netFiles netFiles
}

// ErrRootlessUnavailable wraps every reason the rootless runner cannot run here.
var ErrRootlessUnavailable = errors.New("rootless sandbox not available")

// NewRootless checks that this machine lets this user make the namespaces,
// by making them once, and returns the runner. Its error wraps
// ErrRootlessUnavailable and says what is missing.
func NewRootless() (*Rootless, error) {
	r := &Rootless{tempRoot: os.TempDir(), workDirBytes: 256 << 20, scope: landlockABI() >= landlockScopeABI}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("%w: the judge's own executable: %w", ErrRootlessUnavailable, err)
	}
	r.exe = exe
	if err := probeUserNamespaces(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRootlessUnavailable, err)
	}
	r.python = sharedHostPython()
	r.system = systemPaths(defaultSystemPaths, r.python)
	return r, nil
}

// rootlessCloneFlags are the namespaces of the init (the program gets a
// mount namespace of its own inside).
const rootlessCloneFlags = unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWIPC | unix.CLONE_NEWUTS

// probeUserNamespaces makes the namespaces once, with /bin/true.
func probeUserNamespaces() error {
	truePath := "/bin/true"
	if _, err := os.Stat(truePath); err != nil {
		truePath = "/usr/bin/true"
	}
	pid, err := syscall.ForkExec(truePath, []string{"true"}, &syscall.ProcAttr{Sys: rootlessSysProcAttr()})
	if err != nil {
		return fmt.Errorf("this user cannot make user namespaces (%w); see `tether doctor`", err)
	}
	var ws syscall.WaitStatus
	_, err = syscall.Wait4(pid, &ws, 0, nil)
	return err
}

func rootlessSysProcAttr() *syscall.SysProcAttr {
	// Inside, uid 0 is the judge's own user, with no capability once the
	// program starts.
	outsideUID, outsideGID := os.Geteuid(), os.Getegid()
	return &syscall.SysProcAttr{
		Cloneflags:                 rootlessCloneFlags,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: outsideUID, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: outsideGID, Size: 1}},
		GidMappingsEnableSetgroups: false,
		Pdeathsig:                  syscall.SIGKILL,
	}
}

// Kind implements Runner.
func (r *Rootless) Kind() string { return "rootless" }

// Close removes the files sandboxes with the network saw; call it after
// the last run.
func (r *Rootless) Close() error { return r.netFiles.remove() }

// Start implements Runner.
func (r *Rootless) Start(ctx context.Context, spec Spec) (Process, error) {
	return startChecked(ctx, spec, r.start)
}

func (r *Rootless) start(spec Spec) (_ *rootlessProcess, err error) {
	cpus, err := cpuSet(spec.CPUs)
	if err != nil {
		return nil, err
	}
	p := &rootlessProcess{limits: spec.Limits, exited: make(chan struct{})}
	defer func() {
		if err != nil {
			p.cleanup()
		}
	}()
	// Named after the judge like the linux runner's dirs, so a root judge's
	// linux runner removes what a killed judge left (removeStale).
	if p.dir, err = mkdirOwnedTemp(r.tempRoot, "rootless-*"); err != nil {
		return nil, err
	}
	outbound, err := planOutbound(spec, nil)
	if err != nil {
		return nil, err
	}
	if outbound != nil {
		if spec, err = r.netFiles.bind(spec, r.tempRoot); err != nil {
			return nil, err
		}
	}
	workDir := filepath.Join(p.dir, "work")
	root := filepath.Join(p.dir, "root")
	for _, d := range []string{workDir, root} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return nil, err
		}
	}
	plan, err := planStart(spec, workDir, r.system, r.python, r.workDirBytes)
	if err != nil {
		return nil, err
	}
	cfg := rootlessConfig{
		Args: append([]string{plan.execPath}, spec.Args[1:]...), Env: withWorkDirVars(spec.Env, workDir),
		Dir: plan.dir, Root: root, WorkDir: workDir, ReadOnly: plan.roots.readOnly, Binds: plan.roots.binds,
		TmpfsBytes: plan.tmpfsBytes, Limits: spec.Limits, Scope: r.scope,
	}
	if outbound != nil {
		cfg.Firewall, cfg.Nft = outbound.outboundRuleset(), outbound.tools.nft
	}
	if err := p.makePipes(); err != nil {
		return nil, err
	}
	configR, configW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer configR.Close()
	defer configW.Close()
	var statusW *os.File
	if p.status, statusW, err = os.Pipe(); err != nil {
		return nil, err
	}
	p.statusBuf = bufio.NewReader(p.status)
	p.readyRead = make(chan struct{})
	defer statusW.Close()
	attr := &syscall.ProcAttr{
		Env:   []string{rootlessInitEnv + "=1"},
		Files: []uintptr{p.childStdin.Fd(), p.childStdout.Fd(), p.childStderr.Fd(), configR.Fd(), statusW.Fd()},
		Sys:   rootlessSysProcAttr(),
	}
	// The parent-death signal fires when the thread that started the init
	// ends, so that thread is the reaper's, locked until the init is reaped.
	started := make(chan error, 1)
	go p.run(r.exe, attr, cpus, started)
	if err := <-started; err != nil {
		return nil, err
	}
	p.closeChildEnds()
	configR.Close()
	statusW.Close()
	// The init handles Kill from its first line on (see rootlessReady).
	line, err := p.statusBuf.ReadString('\n')
	close(p.readyRead) // run may read the rest
	if line != rootlessReady {
		p.forceKill()
		<-p.exited
		return nil, fmt.Errorf("the sandbox's init did not start (%q, %v); its stderr says why", line, err)
	}
	if outbound != nil {
		if err := p.startOutbound(outbound); err != nil {
			p.forceKill()
			<-p.exited
			return nil, err
		}
	}
	if err := json.NewEncoder(configW).Encode(&cfg); err != nil {
		p.forceKill()
		<-p.exited
		return nil, fmt.Errorf("send the sandbox its configuration: %w", err)
	}
	configW.Close()
	return p, nil
}

// rootlessProcess is one program of the rootless runner; its pid is the
// init's (PID 1 inside), whose death ends every process of the sandbox.
type rootlessProcess struct {
	limits Limits
	dir    string // host dir: work (staged Files) and root (the mount point)

	stdPipes
	status    *os.File // the init's report
	statusBuf *bufio.Reader
	readyRead chan struct{} // closed once start has read the init's first line

	pid     int
	started time.Time
	exited  chan struct{} // closed by run once the init is reaped
	usage   Usage
	waitErr error

	// outbound is the sandbox's slirp4netns (Spec.Network), which ends
	// when outboundExit, held until Close, closes; nil without the network.
	outbound     *outboundNet
	outboundExit *os.File

	killOnce  sync.Mutex
	closeOnce sync.Once
	closeErr  error
}

// startOutbound starts the sandbox's slirp4netns on the init's namespaces,
// before the init is sent its configuration (which holds the ruleset).
func (p *rootlessProcess) startOutbound(plan *outboundPlan) error {
	exitR, exitW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer exitR.Close()
	if p.outbound, err = plan.startForInit(p.pid, exitR); err != nil {
		exitW.Close()
		return err
	}
	p.outboundExit = exitW
	return nil
}

// stopOutbound ends the sandbox's slirp4netns, if any.
func (p *rootlessProcess) stopOutbound() {
	p.outbound.stop()
	closeFiles(p.outboundExit)
}

// cleanup undoes a start that did not complete (run has not started or
// has reported its failure).
func (p *rootlessProcess) cleanup() {
	p.stopOutbound()
	p.closeChildEnds()
	p.closeParentEnds()
	closeFiles(p.status)
	if p.dir != "" {
		os.RemoveAll(p.dir)
	}
}

// run starts the init on this goroutine's locked thread, reports the start
// on started, then reaps the init and reads its status.
func (p *rootlessProcess) run(exe string, attr *syscall.ProcAttr, cpus *unix.CPUSet, started chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var pid int
	err := startOnThreadCPUs(cpus, func() error {
		var err error
		pid, err = syscall.ForkExec(exe, []string{"tether-sandbox-init"}, attr)
		return err
	})
	if err != nil {
		close(p.exited)
		started <- fmt.Errorf("start the sandbox's init: %w", err)
		return
	}
	p.pid, p.started = pid, time.Now()
	started <- nil
	defer close(p.exited)
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	for {
		_, err = syscall.Wait4(pid, &ws, 0, &ru)
		if err != syscall.EINTR {
			break
		}
	}
	wall := time.Since(p.started)
	var st rootlessStatus
	<-p.readyRead
	data, _ := io.ReadAll(io.LimitReader(p.statusBuf, 1<<16))
	switch {
	case err != nil:
		p.waitErr = fmt.Errorf("sandbox: wait pid %d: %w", pid, err)
		return
	case json.Unmarshal(data, &st) != nil && ws.Exited():
		p.waitErr = fmt.Errorf("sandbox: the rootless sandbox's init failed (exit %d); its stderr says why", ws.ExitStatus())
		return
	case len(data) == 0 || !st.Started && st.Error == "":
		// Killed (Kill, or the judge's end) before it reported.
		st = rootlessStatus{Started: true, Exit: -1, Signal: int(syscall.SIGKILL)}
		if ws.Signaled() {
			st.Signal = int(ws.Signal())
		}
		st.CPUNanos = ru.Utime.Nano() + ru.Stime.Nano()
	case !st.Started:
		p.waitErr = fmt.Errorf("sandbox: %s", st.Error)
		return
	}
	u := Usage{Wall: wall, ExitCode: st.Exit, Signal: st.Signal, CPU: time.Duration(st.CPUNanos), MemoryPeak: st.MaxRSS}
	u.CPUExceeded = p.limits.CPUTime > 0 && (u.Signal == int(syscall.SIGXCPU) || u.CPU >= p.limits.CPUTime)
	p.usage = u
}

// startOnThreadCPUs runs start with the calling (locked) thread's
// affinity set to cpus, so the child is born with it; the mask is put
// back after. A nil set just calls start.
func startOnThreadCPUs(cpus *unix.CPUSet, start func() error) error {
	if cpus == nil {
		return start()
	}
	var saved unix.CPUSet
	if err := unix.SchedGetaffinity(0, &saved); err != nil {
		return err
	}
	if err := unix.SchedSetaffinity(0, cpus); err != nil {
		return fmt.Errorf("CPUs %s: %w", cpuList(cpus), err)
	}
	defer unix.SchedSetaffinity(0, &saved)
	return start()
}

func (p *rootlessProcess) Pid() int { return p.pid }

// Kill implements Process: the init kills every other process of the
// sandbox at once, then reports how the program ended and ends itself.
func (p *rootlessProcess) Kill() error { return p.signal(rootlessKillSignal) }

// forceKill kills the init itself, and with it the sandbox, losing the
// report: for an init that did not get as far as handling Kill.
func (p *rootlessProcess) forceKill() error { return p.signal(syscall.SIGKILL) }

func (p *rootlessProcess) signal(sig syscall.Signal) error {
	p.killOnce.Lock()
	defer p.killOnce.Unlock()
	select {
	case <-p.exited:
		return nil
	default:
	}
	if err := syscall.Kill(p.pid, sig); err != nil && err != syscall.ESRCH {
		return fmt.Errorf("sandbox: kill pid %d: %w", p.pid, err)
	}
	return nil
}

// Wait implements Process.
func (p *rootlessProcess) Wait() (Usage, error) {
	<-p.exited
	return p.usage, p.waitErr
}

// Close implements Process.
func (p *rootlessProcess) Close() error {
	p.closeOnce.Do(func() {
		err := p.Kill()
		<-p.exited
		p.stopOutbound()
		p.closeParentEnds()
		p.status.Close()
		if rerr := os.RemoveAll(p.dir); rerr != nil {
			err = errors.Join(err, fmt.Errorf("sandbox: remove %s: %w", p.dir, rerr))
		}
		p.closeErr = err
	})
	return p.closeErr
}
