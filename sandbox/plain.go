package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// NewPlain returns the "none" runner: each program is a plain child process
// in its own process group, with no isolation at all.
//
// What it enforces: rlimits for CPU time, file size and open files, applied
// with prlimit(2) right after the start (so the first instructions of the
// program run before them; a program cannot use that window to raise its
// hard limits beyond what it inherited, but it can spend a few microseconds
// of CPU unaccounted; prlimit(2) is Linux's, so elsewhere a Spec with limits
// is refused). What it does not enforce: Memory (measured only, as
// MemoryPeak from the rusage high-water mark), Pids, Binds (every host path
// is visible) and Network (the host network is always there).
//
// A bare "python3" or "python" that the Spec's PATH resolves to the same
// file as the judge's own PATH runs the interpreter behind it directly
// (found once per process, see hostPython), as the linux runner does: a
// pyenv shim would otherwise cost a bash and a pyenv run on every start.
//
// The runner is stateless and safe for concurrent use.
func NewPlain() Runner { return plainRunner{} }

type plainRunner struct{}

func (plainRunner) Kind() string { return "none" }

// Close does nothing: the plain runner keeps nothing between starts.
func (plainRunner) Close() error { return nil }

// Start creates the private work dir when needed (no Dir, Files to place,
// or TMPDIR and HOME to point at), starts the program and applies the
// rlimits. On any error the work dir is removed and a started child is
// killed and reaped.
func (plainRunner) Start(ctx context.Context, spec Spec) (Process, error) {
	if err := checkStart(ctx, spec); err != nil {
		return nil, err
	}
	spec = hostPaths(spec)
	p := &plainProcess{exited: make(chan struct{})}
	ok := false
	defer func() {
		if !ok {
			p.cleanupFailedStart()
		}
	}()
	dir := spec.Dir
	if dir == "" || len(spec.Files) > 0 || !setsWorkDirVars(spec.Env) {
		wd, err := os.MkdirTemp("", "tether-work-*")
		if err != nil {
			return nil, fmt.Errorf("sandbox: make work dir: %w", err)
		}
		p.workDir = wd
		if err := placeFiles(wd, spec.Files); err != nil {
			return nil, err
		}
		if dir == "" {
			dir = wd
		}
	}
	path, err := lookPath(spec.Args[0], spec.Env, dir)
	if err != nil {
		return nil, fmt.Errorf("sandbox: start %s: %w", spec.Args[0], err)
	}
	args := spec.Args
	if name := spec.Args[0]; name == "python3" || name == "python" {
		if real := sharedHostPython().interpreter(name, path); real != path {
			// Python derives sys.executable and its prefix from argv[0]
			// (searching PATH for a bare name, which finds the shim again).
			path, args = real, append([]string{real}, spec.Args[1:]...)
		}
	}
	env := append(make([]string, 0, len(spec.Env)), spec.Env...)
	if p.workDir != "" {
		env = withWorkDirVars(env, p.workDir)
	}
	if err := p.makePipes(); err != nil {
		return nil, fmt.Errorf("sandbox: start %s: %w", spec.Args[0], err)
	}
	cmd := &exec.Cmd{
		Path:        path,
		Args:        args,
		Env:         env,
		Dir:         dir,
		Stdin:       p.childStdin,
		Stdout:      p.childStdout,
		Stderr:      p.childStderr,
		SysProcAttr: plainProcAttr(),
	}
	p.cmd = cmd
	p.limits = spec.Limits
	cpus, err := cpuSet(spec.CPUs)
	if err != nil {
		return nil, err
	}
	p.started = time.Now()
	if err := startOnCPUs(cpus, cmd.Start); err != nil {
		return nil, fmt.Errorf("sandbox: start %s: %w", spec.Args[0], err)
	}
	p.closeChildEnds()
	if err := applyRlimits(cmd.Process.Pid, spec.Limits); err != nil {
		return nil, fmt.Errorf("sandbox: limits for %s: %w", spec.Args[0], err)
	}
	ok = true
	return p, nil
}

// lookPath resolves argv[0] like a shell would: a name with a slash is taken
// relative to dir, a bare name is searched in the PATH of env, or of the
// host when env has none.
func lookPath(name string, env []string, dir string) (string, error) {
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		return name, nil
	}
	pathList := os.Getenv("PATH")
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathList = v
		}
	}
	for _, d := range filepath.SplitList(pathList) {
		if d == "" {
			continue
		}
		candidate := filepath.Join(d, name)
		if fi, err := os.Stat(candidate); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return candidate, nil
		}
	}
	return "", fmt.Errorf("%q: %w", name, exec.ErrNotFound)
}

// placeFiles copies each File into dir, refusing names that leave it.
func placeFiles(dir string, files []File) error {
	for _, f := range files {
		clean := filepath.Clean(f.Name)
		if f.Name == "" || filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
			return fmt.Errorf("sandbox: file name %q must be a relative path inside the work dir", f.Name)
		}
		mode := f.Mode
		if mode == 0 {
			mode = 0o644
		}
		target := filepath.Join(dir, clean)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return fmt.Errorf("sandbox: file %q: %w", f.Name, err)
		}
		data := f.Data
		if f.Source != "" {
			var err error
			if data, err = os.ReadFile(f.Source); err != nil {
				return fmt.Errorf("sandbox: file %q: %w", f.Name, err)
			}
		}
		if err := os.WriteFile(target, data, mode); err != nil {
			return fmt.Errorf("sandbox: file %q: %w", f.Name, err)
		}
		if err := os.Chmod(target, mode); err != nil { // WriteFile's mode passes through umask
			return fmt.Errorf("sandbox: file %q: %w", f.Name, err)
		}
	}
	return nil
}

// applyRlimits sets (racing the child's first instructions; see NewPlain) the hard and soft limits of the running child. The CPU
// limit is rounded up to whole seconds; the kernel sends SIGXCPU at the soft
// limit and SIGKILL one second later.
func applyRlimits(pid int, l Limits) error {
	if l.CPUTime > 0 {
		secs := uint64((l.CPUTime + time.Second - 1) / time.Second)
		if err := prlimit(pid, syscall.RLIMIT_CPU, secs, secs+1); err != nil {
			return fmt.Errorf("cpu time: %w", err)
		}
	}
	if l.FileSize > 0 {
		if err := prlimit(pid, syscall.RLIMIT_FSIZE, uint64(l.FileSize), uint64(l.FileSize)); err != nil {
			return fmt.Errorf("file size: %w", err)
		}
	}
	if l.OpenFiles > 0 {
		if err := prlimit(pid, syscall.RLIMIT_NOFILE, uint64(l.OpenFiles), uint64(l.OpenFiles)); err != nil {
			return fmt.Errorf("open files: %w", err)
		}
	}
	return nil
}
