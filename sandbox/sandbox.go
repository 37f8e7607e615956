// Package sandbox starts one program with limits and isolation, wires its
// standard streams to pipes, and measures what it used.
//
// Three runners implement Runner: "none" (plain processes in their own
// process group, no isolation), "linux" (namespaces, cgroups, rlimits,
// seccomp; needs root) and "rootless" (user namespaces, rlimits, seccomp; no
// root, no cgroups). docs/sandbox.md says what each isolates.
// The judge builds one Spec per side and does not care which runner runs it:
// paths in a Spec are host paths, and the linux runner makes each Bind visible
// at the same path inside the sandbox, so a Spec means the same in both.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"
	"time"
)

// Runner starts sandboxed processes. Implementations are safe for concurrent use.
type Runner interface {
	// Kind names the isolation: "none", "rootless" or "linux". It is
	// reported in results.
	Kind() string
	// Start starts spec's program. The context bounds only the start-up; use
	// Process.Kill to stop a running process. On error nothing is left behind.
	Start(ctx context.Context, spec Spec) (Process, error)
	// Close releases what the runner keeps between starts (the linux
	// runner's prepared starts, shared network namespace and lifeline).
	// Call it once no start is in progress and every Process is closed; no
	// Start may follow.
	Close() error
}

// Spec describes one program to run.
type Spec struct {
	Args []string // argv; Args[0] is looked up in PATH
	// Env is the whole environment; nothing is inherited. Two variables
	// are added, each unless Env sets it: TMPDIR and HOME, naming the
	// private work dir (a writable scratch dir even when Dir is read-only).
	Env []string
	// Dir is the working directory. Empty means the private work dir, a fresh
	// writable directory that holds Files and is removed by Close.
	Dir   string
	Files []File // copied into the private work dir before the start
	Binds []Bind // host paths the program may see (linux: bind-mounted at the same path)
	// Network gives the program outbound network access. The linux runner
	// gives every program a network namespace of its own: without Network
	// an empty one (Unix sockets under Binds still work); with it, one
	// whose connections leave through a user-mode network stack and can
	// reach neither the host's loopback nor its own addresses, nor private
	// and special-purpose ranges other than NetworkAllow's
	// (docs/sandbox.md). The rootless runner refuses it; the none runner
	// runs every program on the host's network.
	Network bool
	// NetworkAllow are IPv4 addresses and CIDRs in the ranges a program
	// with Network may not reach by default (private, loopback,
	// link-local, ...) that it may reach all the same: the operator's
	// allow-list. The host's own addresses stay out of reach.
	NetworkAllow []netip.Prefix
	Limits       Limits
	// CPUs are the CPUs the program, and everything it starts, may run on
	// (Linux only): its CPU affinity, and for the linux runner where the
	// cpuset cgroup controller is offered also its cpuset, which the program
	// cannot widen. Empty means any this process may use; a CPU it may not
	// use fails Start.
	CPUs []int
}

// ParseNetworkAllow reads an allow-list (Spec.NetworkAllow) as an
// operator writes it: IPv4 addresses and CIDRs ("10.1.2.3",
// "192.168.7.0/24"). flag names the setting in errors.
func ParseNetworkAllow(flag string, entries []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		p, err := netip.ParsePrefix(e)
		if err != nil {
			a, aerr := netip.ParseAddr(e)
			if aerr != nil {
				return nil, fmt.Errorf("%s %q: not an IPv4 address or CIDR (e.g. 10.1.2.3 or 192.168.7.0/24)", flag, e)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if !p.Addr().Is4() {
			return nil, fmt.Errorf("%s %q: only IPv4 can be allowed (a sandbox's network has no IPv6)", flag, e)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// CheckCPUs reports whether cpus (a Spec.CPUs) can be used by this
// process, with the error Start would give.
func CheckCPUs(cpus []int) error {
	_, err := cpuSet(cpus)
	return err
}

// File is one file placed in the private work dir. Exactly one of Source
// (a host path to copy) and Data is used.
type File struct {
	Name   string // relative path inside the work dir
	Source string
	Data   []byte
	Mode   os.FileMode // 0 means 0o644
}

// Bind makes a host path visible inside the sandbox, at the same path
// unless Target names another.
type Bind struct {
	Path     string
	Writable bool
	// Target is where Path appears inside (e.g. Neuro OJ's /workspace);
	// empty means Path. The none runner cannot move paths: it rewrites Dir
	// and the arguments under Target to Path instead, so a command such as
	// "python3 /workspace/evaluate.py" runs there too.
	Target string
}

// inside is where b appears inside the sandbox.
func (b Bind) inside() string {
	if b.Target != "" {
		return b.Target
	}
	return b.Path
}

// hostPaths returns spec with Dir and every argument that lies under a
// Bind's Target rewritten to the host path, for a runner that cannot mount.
func hostPaths(spec Spec) Spec {
	mapPath := func(p string) string {
		for _, b := range spec.Binds {
			if b.Target == "" {
				continue
			}
			t := strings.TrimSuffix(b.Target, "/")
			if p == t {
				return b.Path
			}
			if rest, ok := strings.CutPrefix(p, t+"/"); ok {
				return strings.TrimSuffix(b.Path, "/") + "/" + rest
			}
		}
		return p
	}
	if spec.Dir != "" {
		spec.Dir = mapPath(spec.Dir)
	}
	args := make([]string, len(spec.Args))
	for i, a := range spec.Args {
		args[i] = mapPath(a)
	}
	spec.Args = args
	return spec
}

// Limits are enforced by the runner where it can; zero means no limit.
// The "none" runner enforces only what rlimits can (CPU time, file size,
// open files) and measures the rest.
type Limits struct {
	Memory    int64         // bytes (cgroup)
	Pids      int           // processes and threads (cgroup)
	CPUTime   time.Duration // whole-run CPU time
	FileSize  int64         // bytes, largest file the program may write
	OpenFiles int
	// CPUMillicores caps the CPU bandwidth of the whole sandbox: at most
	// this many thousandths of a CPU on average, over each 100 ms period
	// (a quota: cgroup v2 cpu.max, v1 cpu.cfs_quota_us), however many CPUs
	// it may run on; 0 means no cap. At least MinCPUMillicores. Only the
	// linux runner enforces it; the others run without it.
	CPUMillicores int
}

// MinCPUMillicores is the smallest Limits.CPUMillicores: the kernel's
// smallest quota, 1 ms per 100 ms period.
const MinCPUMillicores = 10

// Process is a started program. Kill and Close may be called from any
// goroutine; Wait is called once.
type Process interface {
	Stdin() io.WriteCloser // closing it gives the program EOF
	Stdout() io.Reader     // read until EOF; the judge owns the reading
	Stderr() io.Reader
	Pid() int // host pid of the main process
	// Kill stops every process of the sandbox at once (SIGKILL). Idempotent.
	Kill() error
	// Wait blocks until the main process has exited and reports what the
	// sandbox used. Every other process of the sandbox is killed when the
	// main one exits, so Stdout and Stderr reach EOF once drained. It does
	// not close the Stdout/Stderr read ends, so the caller can drain them
	// after Wait.
	Wait() (Usage, error)
	// Close kills what still runs, waits if Wait was not called, closes the
	// pipes and removes the work dir, mounts and cgroup. Safe to call twice.
	Close() error
}

// Usage is what a finished process used and how it ended.
type Usage struct {
	ExitCode       int // -1 when ended by a signal
	Signal         int // the signal number, 0 if none
	Wall           time.Duration
	CPU            time.Duration
	MemoryPeak     int64 // bytes; 0 when unknown
	MemoryExceeded bool  // the memory limit was hit (OOM kill)
	CPUExceeded    bool  // the CPU time limit was hit
}

// workDirVars are what the runners point at the private work dir (see
// Spec.Env).
var workDirVars = []string{"TMPDIR", "HOME"}

// withWorkDirVars returns a copy of env with each of workDirVars set to dir
// where env does not set it.
func withWorkDirVars(env []string, dir string) []string {
	out := make([]string, 0, len(env)+len(workDirVars))
	out = append(out, env...)
	for _, name := range workDirVars {
		if !setsVar(env, name) {
			out = append(out, name+"="+dir)
		}
	}
	return out
}

// setsWorkDirVars reports whether env sets every one of workDirVars.
func setsWorkDirVars(env []string) bool {
	for _, name := range workDirVars {
		if !setsVar(env, name) {
			return false
		}
	}
	return true
}

func setsVar(env []string, name string) bool {
	for _, kv := range env {
		if len(kv) > len(name) && kv[len(name)] == '=' && strings.HasPrefix(kv, name) {
			return true
		}
	}
	return false
}

// checkStart is what every runner's Start checks first: a program to run,
// and a context that has not ended.
func checkStart(ctx context.Context, spec Spec) error {
	if len(spec.Args) == 0 {
		return errors.New("sandbox: spec has no Args")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sandbox: start %s: %w", spec.Args[0], err)
	}
	return nil
}

// startChecked is Start for a runner whose start cannot be interrupted:
// checkStart, then start, whose error is said to be the program's.
func startChecked[P Process](ctx context.Context, spec Spec, start func(Spec) (P, error)) (Process, error) {
	if err := checkStart(ctx, spec); err != nil {
		return nil, err
	}
	p, err := start(spec)
	if err != nil {
		return nil, fmt.Errorf("sandbox: start %s: %w", spec.Args[0], err)
	}
	return p, nil
}
