package lang

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tether-dev/tether/internal/tail"
	"github.com/tether-dev/tether/sandbox"
)

// compile writes files into a build dir of its own and runs argv there,
// with tc as the compiler's own cache when l has one (Language.ToolCache)
// and extra binds (a precompiled header's dir); the messages name a file
// of an extra bind by its path inside that dir, as they name the build
// dir's files by their names.
func (b *Builder) compile(ctx context.Context, l *Language, files []supportFile, argv []string, lim CompileLimits, cpus []int, tc toolCacheMount, extra ...sandbox.Bind) (bd *Build, err error) {
	parent, err := sandbox.MkdirOwnedTemp(buildDirLabel)
	if err != nil {
		return nil, fmt.Errorf("lang: build dir: %w", err)
	}
	defer func() {
		if bd == nil {
			os.RemoveAll(parent)
		}
	}()
	// parent stays private to the judge; src is where the compiler, running
	// as the sandbox's own user, reads the source and writes its output.
	src := filepath.Join(parent, "src")
	if err := os.Mkdir(src, 0o777); err != nil {
		return nil, fmt.Errorf("lang: build dir: %w", err)
	}
	if err := os.Chmod(src, 0o777); err != nil { // whatever the umask
		return nil, fmt.Errorf("lang: build dir: %w", err)
	}
	write := func(name string, data []byte) error {
		path := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
		return os.Chmod(path, 0o644)
	}
	for _, f := range files {
		if err := write(f.name, f.data); err != nil {
			return nil, fmt.Errorf("lang: writing %s for the %s compile: %w", f.name, l.ID, err)
		}
	}

	args, toolEnv, err := l.compileCommand(argv)
	if err != nil {
		return nil, err
	}
	binds := slices.Concat([]sandbox.Bind{{Path: src, Writable: true}}, l.Binds(), extra)
	if l.SelfExe {
		proc, err := selfExe(parent, args[0])
		if err != nil {
			return nil, err
		}
		binds = append(binds, sandbox.Bind{Path: proc, Target: "/proc"})
	}
	env := append(slices.Clip(b.Env), l.CompileEnv...)
	if toolEnv != "" {
		env = append(env, toolEnv)
	}
	if l.ToolCache != "" {
		bind, err := tc.bind(parent)
		if err != nil {
			return nil, err
		}
		if tc.dir == "" {
			defer os.RemoveAll(bind.Path) // tens of MB the run does not need
		}
		binds = append(binds, bind)
		env = append(env, l.ToolCache+"="+bind.Path)
	}
	spec := sandbox.Spec{
		Args:  args,
		Env:   env,
		Dir:   src,
		Binds: binds,
		CPUs:  cpus,
		Limits: sandbox.Limits{
			Memory:    lim.MemoryLimitMB << 20,
			Pids:      int(lim.Processes),
			CPUTime:   time.Duration(lim.CPUTimeLimitMs) * time.Millisecond,
			FileSize:  lim.ExecutableLimitMB << 20,
			OpenFiles: 256,
		},
	}
	out, usage, timedOut, err := runCompiler(ctx, b.Runner, spec, int(lim.OutputLimitKB<<10), lim.wall())
	if err != nil {
		return nil, err
	}
	stats := Stats{TimeMs: usage.Wall.Milliseconds(), MemoryKB: usage.MemoryPeak / 1024}
	for _, bind := range extra {
		for _, dir := range []string{bind.Path, bind.Target} {
			if dir != "" {
				out = strings.ReplaceAll(out, dir+"/", "")
			}
		}
	}
	message := cleanMessages(out, src)
	fail := func(reason string) (*Build, error) {
		return nil, &CompileError{Reason: reason, Message: message, Stats: stats}
	}
	switch {
	case timedOut:
		return fail(fmt.Sprintf("the compiler ran past the compile time limit of %d ms (time_limit_ms)", lim.TimeLimitMs))
	case usage.MemoryExceeded || outOfMemory(message):
		return fail(fmt.Sprintf("the compiler hit the compile memory limit of %d MB (memory_limit_mb)", lim.MemoryLimitMB))
	case usage.CPUExceeded || usage.Signal == int(syscall.SIGXCPU):
		return fail(fmt.Sprintf("the compiler used up the compile CPU time limit of %d ms (cpu_time_limit_ms)", lim.CPUTimeLimitMs))
	case usage.Signal == int(syscall.SIGXFSZ) || fileTooLarge(message) || anyFileAtLeast(src, lim.ExecutableLimitMB<<20):
		return fail(fmt.Sprintf("the compiler's output reached the executable size limit of %d MB (executable_limit_mb)", lim.ExecutableLimitMB))
	case usage.Signal != 0:
		return fail(fmt.Sprintf("the compiler was killed by %s", syscall.Signal(usage.Signal)))
	case usage.ExitCode != 0:
		return fail(fmt.Sprintf("compilation failed (the compiler exited with status %d)", usage.ExitCode))
	}
	built, total, err := builtFiles(src)
	if err != nil {
		return nil, err
	}
	if max := lim.ExecutableLimitMB << 20; max > 0 && total > max {
		return fail(fmt.Sprintf("the compiled files are %s, over the executable size limit of %d MB (executable_limit_mb)", byteSize(total), lim.ExecutableLimitMB))
	}
	return &Build{Dir: parent, Files: built, Stats: stats}, nil
}

// runCompiler runs spec, keeping the last max bytes of its stdout and
// stderr together, and kills it after wall.
func runCompiler(ctx context.Context, r sandbox.Runner, spec sandbox.Spec, max int, wall time.Duration) (string, sandbox.Usage, bool, error) {
	proc, err := r.Start(ctx, spec)
	if err != nil {
		if ctx.Err() != nil {
			return "", sandbox.Usage{}, false, fmt.Errorf("lang: compile cancelled: %w", ctx.Err())
		}
		return "", sandbox.Usage{}, false, fmt.Errorf("lang: cannot start the compiler %q: %w", spec.Args[0], err)
	}
	defer proc.Close()
	proc.Stdin().Close()
	var hit atomic.Bool
	timer := time.AfterFunc(wall, func() { hit.Store(true); proc.Kill() })
	stop := context.AfterFunc(ctx, func() { proc.Kill() })
	defer stop()
	var mu sync.Mutex
	messages := tail.New(max)
	var wg sync.WaitGroup
	for _, rd := range []io.Reader{proc.Stdout(), proc.Stderr()} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 16<<10)
			for {
				n, err := rd.Read(buf)
				if n > 0 {
					mu.Lock()
					messages.Write(buf[:n])
					mu.Unlock()
				}
				if err != nil {
					return
				}
			}
		}()
	}
	usage, werr := proc.Wait()
	timer.Stop()
	proc.Kill() // the compiler's children, if any outlived it
	wg.Wait()
	if ctx.Err() != nil {
		return "", usage, false, fmt.Errorf("lang: compile cancelled: %w", ctx.Err())
	}
	if werr != nil {
		return "", usage, false, fmt.Errorf("lang: compiler %q: %w", spec.Args[0], werr)
	}
	return compilerMessages(messages), usage, hit.Load(), nil
}

// builtFiles are every regular file under dir (sources included: some
// languages run them), with their modes.
func builtFiles(dir string) ([]sandbox.File, int64, error) {
	var files []sandbox.File
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil // dirs are made as files need them; links are not followed
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		total += info.Size()
		files = append(files, sandbox.File{Name: filepath.ToSlash(rel), Source: path, Mode: runMode(info.Mode())})
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("lang: reading the compiled files: %w", err)
	}
	return files, total, nil
}

// runMode is the mode a built file gets in the solution's work dir:
// executable when its owner could execute it.
func runMode(m fs.FileMode) fs.FileMode {
	if m&0o100 != 0 {
		return 0o755
	}
	return 0o644
}

func anyFileAtLeast(dir string, size int64) bool {
	if size <= 0 {
		return false
	}
	found := false
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil && info.Size() >= size {
				found = true
				return fs.SkipAll
			}
		}
		return nil
	})
	return found
}

// Compilers say they ran out of memory in their own words when a
// per-process limit (rootless: RLIMIT_DATA) refuses an allocation.
var outOfMemoryWords = []string{"out of memory", "virtual memory exhausted", "cannot allocate memory", "std::bad_alloc", "OutOfMemoryError"}

func outOfMemory(message string) bool { return containsAny(message, outOfMemoryWords) }

func fileTooLarge(message string) bool {
	return containsAny(message, []string{"File size limit exceeded", "File too large", "signal 25"})
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}
