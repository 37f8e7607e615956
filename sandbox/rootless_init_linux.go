//go:build linux

package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/criyle/go-sandbox/pkg/forkexec"
	"github.com/criyle/go-sandbox/pkg/rlimit"
	"golang.org/x/sys/unix"
)

// The rootless runner's init: the judge's own executable, started again
// with rootlessInitEnv set as PID 1 of the sandbox's new user, PID,
// network, IPC and UTS namespaces (see rootless_linux.go). It holds every
// capability inside its user namespace and none outside. It reads its
// rootlessConfig from fd 3, starts the program as PID 2 with go-sandbox
// (a new mount namespace with the same mounts and pivot_root as the linux
// runner, rlimits, the seccomp filter, no_new_privs, no capabilities), and,
// being init, reaps everything. When the program ends it kills the rest,
// reaps them, and writes the program's rootlessStatus to fd 4.

const rootlessInitEnv = "TETHER_ROOTLESS_INIT"

func init() {
	if os.Getenv(rootlessInitEnv) == "1" {
		runtime.LockOSThread()
		// Inherited without close-on-exec: the program must not get the
		// status pipe (it could forge its own end) or the config.
		syscall.CloseOnExec(3)
		syscall.CloseOnExec(4)
		listenForKill()
		err := rootlessInit(os.NewFile(3, "config"), os.NewFile(4, "status"))
		if err != nil {
			fmt.Fprintf(os.Stderr, "tether rootless sandbox: %v\n", err)
			os.Exit(111)
		}
		os.Exit(0)
	}
}

// rootlessConfig is what the judge tells the init.
type rootlessConfig struct {
	Args       []string
	Env        []string
	Dir        string
	Root       string // the new root's mount point (a host dir)
	WorkDir    string
	ReadOnly   []string
	Binds      []Bind
	TmpfsBytes int64
	Limits     Limits
	Scope      bool // Landlock scoping of abstract Unix sockets
	// Firewall is the nftables ruleset of a sandbox with the network
	// (linux_outbound.go), loaded with Nft before the program starts; ""
	// for none.
	Firewall, Nft string
}

// rootlessStatus is how the program ended.
type rootlessStatus struct {
	Started  bool // the program was started (else Error says why not)
	Error    string
	Exit     int // exit code, -1 when ended by a signal
	Signal   int
	CPUNanos int64 // the program's and every reaped descendant's
	MaxRSS   int64 // bytes: the largest of them
}

// rootlessKillSignal asks the init to kill the program and everything
// else in the sandbox, then report as usual (a SIGKILL of the init would
// lose the program's CPU time). An init takes signals from outside its PID
// namespace only once it handles them (pid_namespaces(7)), so the init
// says "ready" (rootlessReady) after listenForKill and Start waits for it.
const rootlessKillSignal = syscall.SIGUSR1

// rootlessReady is the init's first line on the status pipe.
const rootlessReady = "ready\n"

// killed is set by the kill signal; a program started after it is killed
// at once.
var killed atomic.Bool

func listenForKill() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, rootlessKillSignal)
	go func() {
		<-sig
		killed.Store(true)
		unix.Kill(-1, unix.SIGKILL) // every process of the namespace but this one
	}()
}

func rootlessInit(configFile, statusFile *os.File) error {
	if _, err := io.WriteString(statusFile, rootlessReady); err != nil {
		return err
	}
	var cfg rootlessConfig
	if err := json.NewDecoder(configFile).Decode(&cfg); err != nil {
		return fmt.Errorf("read config: %w", err)
	}
	configFile.Close()
	if err := unix.Sethostname([]byte("sandbox")); err != nil {
		return fmt.Errorf("hostname: %w", err)
	}
	if cfg.Firewall != "" {
		if err := loadNftRuleset(cfg.Nft, cfg.Firewall); err != nil {
			return json.NewEncoder(statusFile).Encode(rootlessStatus{Error: err.Error()})
		}
	}
	st := runRootlessProgram(&cfg)
	return json.NewEncoder(statusFile).Encode(st)
}

func runRootlessProgram(cfg *rootlessConfig) rootlessStatus {
	fail := func(err error) rootlessStatus { return rootlessStatus{Error: err.Error()} }
	mounts, err := buildMounts(layout{workDir: cfg.WorkDir, root: cfg.Root},
		&visibleRoots{readOnly: cfg.ReadOnly, binds: cfg.Binds}, cfg.TmpfsBytes, 0, 0)
	if err != nil {
		return fail(err)
	}
	if cfg.Scope {
		// Landlock needs no_new_privs or CAP_SYS_ADMIN; set it on this
		// thread (the program gets it anyway).
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return fail(err)
		}
		if err := restrictAbstractSockets(); err != nil {
			return fail(err)
		}
	}
	seccomp, err := denyFilter()
	if err != nil {
		return fail(err)
	}
	if !seccompSupported() {
		seccomp = nil
	}
	r := rlimits(cfg.Limits)
	if cfg.Limits.Memory > 0 {
		r = append(r, rlimitOf(unix.RLIMIT_DATA, uint64(cfg.Limits.Memory)))
	}
	if cfg.Limits.Pids > 0 {
		// Counted per user namespace, so this sandbox's processes and
		// threads only, this init's threads among them.
		r = append(r, rlimitOf(unix.RLIMIT_NPROC, uint64(cfg.Limits.Pids+ownThreads())))
	}
	program := &forkexec.Runner{
		Args:       cfg.Args,
		Env:        cfg.Env,
		Files:      []uintptr{0, 1, 2},
		WorkDir:    cfg.Dir,
		RLimits:    r,
		Seccomp:    seccomp,
		CloneFlags: unix.CLONE_NEWNS,
		Mounts:     mounts,
		PivotRoot:  cfg.Root,
		NoNewPrivs: true,
		DropCaps:   true,
	}
	pid, err := startProgram(program)
	if err != nil {
		return fail(err)
	}
	if killed.Load() {
		unix.Kill(pid, unix.SIGKILL)
	}
	for _, f := range []int{0, 1, 2} {
		unix.Close(f) // only the program holds its pipes
	}
	st := rootlessStatus{Started: true}
	var ws unix.WaitStatus
	var ru unix.Rusage
	for {
		got, err := unix.Wait4(-1, &ws, 0, &ru)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fail(fmt.Errorf("wait: %w", err))
		}
		if got == pid {
			break
		}
	}
	st.Exit = ws.ExitStatus()
	if ws.Signaled() {
		st.Exit, st.Signal = -1, int(ws.Signal())
	}
	// Whatever the program left ends with it, as in the linux runner.
	unix.Kill(-1, unix.SIGKILL)
	for {
		if _, err := unix.Wait4(-1, nil, 0, nil); err == unix.ECHILD {
			break
		}
	}
	var all unix.Rusage
	unix.Getrusage(unix.RUSAGE_CHILDREN, &all)
	st.CPUNanos = all.Utime.Nano() + all.Stime.Nano()
	st.MaxRSS = all.Maxrss * 1024
	return st
}

func rlimitOf(res int, v uint64) rlimit.RLimit {
	return rlimit.RLimit{Res: res, Rlim: syscall.Rlimit{Cur: v, Max: v}}
}

// ownThreads is how many threads this process has (/proc/self/status).
func ownThreads() int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				return n
			}
		}
	}
	return 1
}
