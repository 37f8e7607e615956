//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/criyle/go-sandbox/pkg/forkexec"
	"github.com/criyle/go-sandbox/pkg/rlimit"
	"golang.org/x/sys/unix"
)

// Linux is the "linux" runner: each program gets its own PID, mount,
// network, IPC and UTS namespaces, a read-only view of the system
// directories plus its Binds, a private tmpfs work dir, an unprivileged uid
// with no capabilities and no_new_privs, a seccomp deny-list, rlimits for
// CPU time, file size and open files, and a cgroup for memory, pids, CPU
// accounting and a CPU share of its own (equal for every sandbox, so one
// side of a run cannot starve the other however many processes it forks).
//
// Inside, PID 1 is a placeholder (cat reading the runner's lifeline pipe)
// that only holds the namespace, and the program is PID 2, so it is an
// ordinary process: it can signal or kill itself, and kill(-1) reaches only
// its own children. When the program exits the placeholder is killed, and
// with it every process it left. Only the judge holds the lifeline's write
// end, so when the judge dies in any way (kill -9 included) every
// placeholder reads EOF and exits, and the kernel kills the rest of its
// namespace: no sandbox outlives its judge.
//
// Every sandbox gets a network namespace of its own (loopback down, or
// with Spec.Network outbound access only, through slirp4netns: see
// linux_outbound.go), so nothing a network namespace scopes is shared
// between sandboxes that run at once, nor with the host; and where the
// kernel has it, every sandbox
// gets a Landlock domain that keeps its abstract Unix sockets to itself
// (see linux_netns.go). Each sandbox that runs at once has a user of its
// own (see linux_uids.go).
//
// Cgroups are made under "tether/" in the judge's own cgroup of each
// controller and temp dirs under TempRoot/tether-sbx-*, named after the
// judge process; NewLinux removes those whose judge has died.
//
// A Linux runner is safe for concurrent use.
type Linux struct {
	uid, gid     int
	pooledUIDs   bool // a uid per running sandbox (see linux_uids.go); uid is the range's first
	system       []string
	tempRoot     string
	workDirBytes int64
	cgroups      *cgroupLayout
	python       *hostPython
	placeholder  string // host path of cat
	// lifeline is a pipe nobody writes to: placeholders read its read end,
	// the judge alone holds its write end (close-on-exec), until Close.
	lifeline, lifelineHold, devNull *os.File
	seccomp                         *syscall.SockFprog
	// root is the host dir every sandbox pivots into (see sharedRootDir);
	// "" means a new one per sandbox.
	root string
	// scopeSockets: the kernel can scope abstract Unix sockets (Landlock).
	scopeSockets bool
	// warm holds the prepared start threads; nil without WarmStarts.
	// Closed by Close.
	warm *warmPool
	// netFiles holds what sandboxes with Spec.Network see of the
	// network's set-up (linux_outbound.go); made by the first of them,
	// removed by Close.
	netFiles netFiles
	// counted: the runner is counted in linuxRunnerOpened, until Close.
	counted atomic.Bool
}

// NewLinux checks that this machine can run the linux sandbox, removes what
// dead judges left behind, and returns the runner. Its error wraps
// ErrLinuxUnavailable and says what is missing.
func NewLinux(opts *LinuxOptions) (*Linux, error) {
	if opts == nil {
		opts = &LinuxOptions{}
	}
	r := &Linux{uid: opts.UID, gid: opts.GID, tempRoot: opts.TempRoot, workDirBytes: opts.WorkDirBytes}
	if r.uid == 0 {
		r.uid, r.pooledUIDs = sandboxUIDBase, true
	}
	if r.gid == 0 {
		r.gid = sandboxGID
	}
	if r.tempRoot == "" {
		r.tempRoot = os.TempDir()
	}
	if r.workDirBytes <= 0 {
		r.workDirBytes = 256 << 20
	}
	if err := probeLinux(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLinuxUnavailable, err)
	}
	if r.pooledUIDs {
		if err := checkUIDLockDir(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrLinuxUnavailable, err)
		}
	}
	cg, err := detectCgroups()
	if err == nil {
		err = cg.probe()
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLinuxUnavailable, err)
	}
	r.cgroups = cg
	if r.placeholder, err = exec.LookPath("cat"); err != nil {
		return nil, fmt.Errorf("%w: no cat binary for the namespace placeholder: %w", ErrLinuxUnavailable, err)
	}
	if r.lifeline, r.lifelineHold, err = os.Pipe(); err != nil {
		return nil, fmt.Errorf("sandbox: lifeline pipe: %w", err)
	}
	if r.devNull, err = os.OpenFile(os.DevNull, os.O_WRONLY, 0); err != nil {
		r.lifeline.Close()
		r.lifelineHold.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if seccompSupported() {
		if r.seccomp, err = denyFilter(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrLinuxUnavailable, err)
		}
	}
	r.python = sharedHostPython()
	system := opts.SystemPaths
	if system == nil {
		system = defaultSystemPaths
	}
	r.system = systemPaths(system, r.python)
	// This judge's own entries must read as alive before any other judge
	// looks: its owner locks come before the first of them.
	linuxRunnerOpened()
	r.counted.Store(true)
	for _, dir := range cg.parentDirs() {
		if err := holdOwnerLock(dir, ""); err != nil {
			r.Close()
			return nil, err
		}
	}
	if err := holdOwnerLock(r.tempRoot, tempPrefix); err != nil {
		r.Close()
		return nil, err
	}
	if err := errors.Join(removeStale(cg.parentDirs(), r.tempRoot), removeStaleJudgeGroups(cg.judgeGroupHomes())); err != nil {
		r.Close()
		return nil, fmt.Errorf("sandbox: clean up after a dead judge: %w", err)
	}
	r.root = sharedRootDir(r.tempRoot)
	if opts.WarmStarts > 0 {
		r.warm = newWarmPool(cg, opts.WarmStarts)
	}
	r.scopeSockets = landlockABI() >= landlockScopeABI
	if r.warm != nil {
		r.warm.fill() // in the background: ready by the first start of a judge run
	}
	return r, nil
}

// Close discards the runner's prepared start threads and ends its lifeline, so every sandbox of this runner
// that still runs is killed: call it after the last run. Start must not be
// called after Close. Safe twice.
func (r *Linux) Close() error {
	if r.warm != nil {
		r.warm.close()
	}
	errs := []error{r.netFiles.remove()}
	for _, f := range []*os.File{r.lifelineHold, r.lifeline, r.devNull} {
		if f == nil {
			continue
		}
		if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			errs = append(errs, err)
		}
	}
	if r.counted.CompareAndSwap(true, false) {
		linuxRunnerClosed()
	}
	return errors.Join(errs...)
}

// probeLinux says what of the kernel features the runner needs is missing.
func probeLinux() error {
	if os.Geteuid() != 0 {
		return errors.New("not running as root (namespaces, mounts and cgroups need it)")
	}
	for _, ns := range []string{"pid", "mnt", "net", "ipc", "uts"} {
		if _, err := os.Stat("/proc/self/ns/" + ns); err != nil {
			return fmt.Errorf("no %s namespaces in this kernel: %w", ns, err)
		}
	}
	return nil
}

// Kind implements Runner.
func (r *Linux) Kind() string { return "linux" }

// Start implements Runner. The context is checked before the start; the
// start itself takes a few milliseconds and is not interruptible.
func (r *Linux) Start(ctx context.Context, spec Spec) (Process, error) {
	return startChecked(ctx, spec, r.start)
}

func (r *Linux) start(spec Spec) (_ *linuxProcess, err error) {
	name := fmt.Sprintf("%s-%d", ownerTag, sandboxSeq.Add(1))
	p := &linuxProcess{limits: spec.Limits, exited: make(chan struct{})}
	if p.cpus, err = cpuSet(spec.CPUs); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			p.cleanupFailedStart()
		}
	}()
	// One host dir per sandbox (each directory made and removed costs
	// ~0.3 ms on ext4): it stages the Files and is the work dir's path;
	// inside, a new tmpfs is mounted there.
	p.dir = layout{base: filepath.Join(r.tempRoot, tempPrefix+name), root: r.root}
	p.dir.workDir = p.dir.base
	if _, err = mkdirExact(p.dir.base); err != nil {
		p.dir.base = "" // not ours to remove
		return nil, err
	}
	if r.root == "" {
		p.dir.root = filepath.Join(p.dir.base, ".root")
		if err := os.Mkdir(p.dir.root, 0o700); err != nil {
			return nil, err
		}
	}
	net := netPlan{scope: r.scopeSockets}
	if net.outbound, err = planOutbound(spec, r.lifeline); err != nil {
		return nil, err
	}
	if net.outbound != nil {
		if spec, err = r.netFiles.bind(spec, r.tempRoot); err != nil {
			return nil, err
		}
	}
	plan, err := planStart(spec, p.dir.workDir, r.system, r.python, r.workDirBytes)
	if err != nil {
		return nil, err
	}
	uid := r.uid
	if r.pooledUIDs {
		if p.uid, err = claimUID(); err != nil {
			return nil, err
		}
		uid = p.uid.uid
	}
	mounts, err := buildMounts(p.dir, plan.roots, plan.tmpfsBytes, uid, r.gid)
	if err != nil {
		return nil, err
	}
	if err := p.makePipes(); err != nil {
		return nil, err
	}
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(r.gid)}
	placeholder := &forkexec.Runner{
		Args:       []string{r.placeholder},
		Files:      []uintptr{r.lifeline.Fd(), r.devNull.Fd(), r.devNull.Fd()},
		WorkDir:    "/",
		Credential: cred,
		NoNewPrivs: true,
		DropCaps:   true,
		Seccomp:    r.seccomp,
	}
	program := &forkexec.Runner{
		Args:       append([]string{plan.execPath}, spec.Args[1:]...),
		Env:        withWorkDirVars(spec.Env, p.dir.workDir),
		Files:      []uintptr{p.childStdin.Fd(), p.childStdout.Fd(), p.childStderr.Fd()},
		WorkDir:    plan.dir,
		RLimits:    rlimits(spec.Limits),
		Seccomp:    r.seccomp,
		CloneFlags: unix.CLONE_NEWNS | unix.CLONE_NEWIPC | unix.CLONE_NEWUTS,
		Mounts:     mounts,
		PivotRoot:  p.dir.root,
		HostName:   "sandbox",
		DomainName: "sandbox",
		Credential: cred,
		NoNewPrivs: true,
		DropCaps:   true,
	}
	pids := 0
	if spec.Limits.Pids > 0 {
		pids = spec.Limits.Pids + 1 // the placeholder is one of them
	}
	var warm *warmThread
	if r.warm != nil {
		warm = r.warm.take()
	}
	if warm != nil {
		p.cg = warm.cg
		err = warm.start(warmJob{placeholder: placeholder, program: program, net: net, memory: spec.Limits.Memory, pids: pids, millicores: spec.Limits.CPUMillicores, p: p})
	} else if p.cg, err = r.cgroups.newCgroup(name, spec.Limits.Memory, pids, spec.Limits.CPUMillicores, p.cpus); err == nil {
		err = startInNewPIDNamespace(placeholder, program, net, p)
	}
	if r.warm != nil {
		// Refills run when a sandbox closes (between runs, not in the
		// middle of the next start); a cold start means the pool was empty.
		p.onClose = r.warm.fill
		if warm == nil {
			r.warm.fill()
		}
	}
	if err != nil {
		return nil, err
	}
	if cpu, err := p.cg.cpuUsage(); err == nil {
		p.cpuBase = cpu
	}
	p.closeChildEnds()
	p.watch()
	return p, nil
}

// rlimits are set in the child before execve. CPU time is also watched on
// the whole cgroup (see linuxProcess.watch); the rlimit is the backstop for
// the main process, one second after.
func rlimits(l Limits) []rlimit.RLimit {
	r := rlimit.RLimits{DisableCore: true}
	if l.CPUTime > 0 {
		secs := uint64((l.CPUTime + time.Second - 1) / time.Second)
		r.CPU, r.CPUHard = secs+1, secs+2
	}
	if l.FileSize > 0 {
		r.FileSize = uint64(l.FileSize)
	}
	if l.OpenFiles > 0 {
		r.OpenFile = uint64(l.OpenFiles)
	}
	return r.PrepareRLimit()
}

// sharedRootDir returns tempRoot/tether-sbx-newroot, made if missing: an
// empty directory that every sandbox of every judge pivots into. Each
// sandbox mounts its own tmpfs on it inside its own mount namespace, so on
// the host it stays empty and one serves all, and it is never removed (no
// judge owns it: removeStale leaves it). It is used only if it is a real
// directory owned by root and writable by no one else; otherwise ""
// (another user made it first), and each sandbox gets a dir of its own.
func sharedRootDir(tempRoot string) string {
	dir := filepath.Join(tempRoot, tempPrefix+"newroot")
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return ""
	}
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 {
		return ""
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Uid != 0 {
		return ""
	}
	return dir
}

// sandboxSeq numbers the sandboxes of this judge process (all runners:
// their names share ownerTag).
var sandboxSeq atomic.Uint64

// mkdirExact makes dir (0700) and fails if it exists.
func mkdirExact(dir string) (string, error) {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", fmt.Errorf("make sandbox dir: %w", err)
	}
	return dir, nil
}
