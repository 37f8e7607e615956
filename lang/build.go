package lang

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tether-dev/tether/sandbox"
	"github.com/tether-dev/tether/sig"
)

// Builder compiles submissions, each in a sandbox of its own, and keeps
// what it built in Cache. Safe for concurrent use.
type Builder struct {
	Runner sandbox.Runner
	Cache  *Cache   // nil: every submission is compiled, its host's units too
	Env    []string // the compiler's whole environment (PATH, LANG, ...)
	Host   string   // the host library's version, part of the cache key

	prebuilds      atomic.Int64 // host objects compiled (Language.PrebuildSupport), for tests
	prebuildFailed sync.Map     // keys of host objects that would not build: not tried again
}

// Request is one submission to build.
type Request struct {
	Language *Language
	Source   []byte
	// FileName is the submission's own file name, "" if none: only its
	// extension counts, when it is one of the language's (SourceFor).
	FileName string
	Limits   CompileLimits // the limits in force (Language.Effective)
	MemoryMB int64         // the solution's memory limit, for the run command
	CPUs     []int         // where the compiler may run (sandbox.Spec.CPUs)
	// Functions are the problem's declared functions (package sig); the
	// build adds the language's generated glue, when it has one, so the
	// source holds nothing but the functions. nil: the source exports its
	// functions itself.
	Functions *sig.Declaration
}

// Stats are what the compile step took; it is not on the solution's clock.
type Stats struct {
	TimeMs   int64 `json:"time_ms"`
	MemoryKB int64 `json:"memory_kb"`
	Cached   bool  `json:"cached"`
}

// Build is a built submission: the files its run needs in the solution's
// work dir and the command that starts it. Close removes Dir.
type Build struct {
	Dir   string // a host dir of the run's own, "" when the files hold their data
	Files []sandbox.File
	Run   []string
	Binds []sandbox.Bind // host paths the run needs to see (Language.Paths)
	// OutOfMemory is Language.OutOfMemory: a run whose stderr has it
	// ended at the memory limit.
	OutOfMemory string
	Stats       Stats
}

// Close removes what the build holds on disk. Safe on nil and twice.
func (b *Build) Close() error {
	if b == nil || b.Dir == "" {
		return nil
	}
	dir := b.Dir
	b.Dir = ""
	return os.RemoveAll(dir)
}

// CompileError is the submission's fault: the compiler refused it or a
// limit of the compile step was hit. The verdict is CompileError.
type CompileError struct {
	Reason  string // one line: what failed ("the compiler exited with status 1")
	Message string // the compiler's messages, tail-kept, paths relative to the submission
	Stats   Stats
}

func (e *CompileError) Error() string {
	if e.Message == "" {
		return e.Reason
	}
	return e.Reason + ":\n" + e.Message
}

// buildDirLabel names the build dirs (sandbox.MkdirOwnedTemp), so a killed
// judge's are removed with its sandboxes' dirs.
const buildDirLabel = "build"

// Build compiles req's source (or only places it, for a language without a
// compile step). The error is a *CompileError when the submission is at
// fault; any other error is the judge's (a sandbox that cannot start, a
// full disk).
func (b *Builder) Build(ctx context.Context, req Request) (*Build, error) {
	l := req.Language.SourceFor(req.FileName)
	lim := req.Limits
	if lim == (CompileLimits{}) {
		lim = l.Effective(CompileLimits{})
	}
	if max := lim.SourceLimitKB << 10; max > 0 && int64(len(req.Source)) > max {
		return nil, &CompileError{Reason: fmt.Sprintf("the source is %s, over the source limit of %d KB (source_limit_kb)",
			byteSize(int64(len(req.Source))), lim.SourceLimitKB)}
	}
	source := req.Source
	var extra []supportFile // compiled beside the source: the glue's own files
	glue := sig.GlueFor(l.ID, req.Functions, l.Source, req.Source)
	if glue != nil {
		source = glue.Source
		l = withCheck(l, glue)
		for _, f := range glue.Files {
			extra = append(extra, supportFile{name: f.Name, data: f.Data})
		}
	}
	run := resolveTool(l.RunCommand(req.MemoryMB))
	binds := l.Binds()
	if !l.Compiled() {
		files := []sandbox.File{{Name: l.Source, Data: source}}
		support, err := supportFiles(l)
		if err != nil {
			return nil, err
		}
		for _, f := range support {
			files = append(files, sandbox.File{Name: f.name, Data: f.data})
		}
		return &Build{Files: files, Run: run, Binds: binds, OutOfMemory: l.OutOfMemory}, nil
	}
	var key string
	if b.Cache != nil {
		k, err := b.key(ctx, l, source, extra)
		if err != nil {
			return nil, err
		}
		key = k
		if bd, ok := b.Cache.get(key); ok {
			bd.Run, bd.Binds, bd.OutOfMemory = run, binds, l.OutOfMemory
			return bd, nil
		}
	}
	bd, err := b.compileSubmission(ctx, l, source, extra, lim, req.CPUs)
	if err != nil {
		var ce *CompileError
		if glue != nil && errors.As(err, &ce) {
			if glue.Explain != nil {
				ce.Message = glue.Explain(ce.Message)
			}
			ce.Message = "the problem declares (problem.json functions):\n    " +
				strings.Join(glue.Expected, "\n    ") + "\n\n" + ce.Message
		}
		return nil, err
	}
	bd.Files = l.outputs(bd.Files)
	bd.Run, bd.Binds, bd.OutOfMemory = run, binds, l.OutOfMemory
	if b.Cache != nil {
		// A failed publish costs only the next build its hit.
		_ = b.Cache.put(key, bd)
	}
	return bd, nil
}

// withCheck is l with the glue's check as its compile step, for a language
// without one (Python: the declared functions are checked before any
// call; JavaScript: its host checks them). A check that brings files of
// its own is not run for a language with host files of its own.
func withCheck(l *Language, g *sig.Glue) *Language {
	if g.Check == nil || l.Compiled() || g.Support != nil && l.Support != nil {
		return l
	}
	lc := *l
	lc.Compile = g.Check
	if g.Support != nil {
		lc.Support = g.Support
		lc.SupportVersion = l.SupportVersion + "+" + g.SupportVersion
	}
	return &lc
}

type supportFile struct {
	name string
	data []byte
}

// supportFiles are the files of l.Support, sorted by name.
func supportFiles(l *Language) ([]supportFile, error) {
	if l.Support == nil {
		return nil, nil
	}
	var out []supportFile
	err := fs.WalkDir(l.Support, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(l.Support, path)
		if err != nil {
			return err
		}
		out = append(out, supportFile{name: path, data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("lang: %s host files: %w", l.ID, err)
	}
	return out, nil
}

// compileUnits are the support files that are compile units of l.
func compileUnits(l *Language, support []supportFile) []string {
	var units []string
	for _, f := range support {
		if slices.Contains(l.Extensions, strings.ToLower(filepath.Ext(f.name))) {
			units = append(units, f.name)
		}
	}
	return units
}

// compileArgs expands l.Compile: {source}, {memory_mb}, and {support} as
// units (one argument each).
func compileArgs(l *Language, units []string) []string {
	var argv []string
	for _, a := range l.expand(l.Compile, 0) {
		if a == "{support}" {
			argv = append(argv, units...)
			continue
		}
		argv = append(argv, a)
	}
	return argv
}

// prebuildArgs turns l's compile command into one that compiles only the
// host's units, each to its object in the build dir (gcc's and clang's
// -c), and names those objects: the command without its -o, {source} and
// -l arguments. ok is false when l does not prebuild.
func prebuildArgs(l *Language, units []string) (argv, objects []string, ok bool) {
	if !l.PrebuildSupport || len(units) == 0 || !slices.Contains(l.Compile, "{support}") {
		return nil, nil, false
	}
	compile := l.expand(l.Compile, 0)
	for i := 0; i < len(compile); i++ {
		switch a := compile[i]; {
		case a == "-o":
			i++
		case a == l.Source, strings.HasPrefix(a, "-l"):
		case a == "{support}":
			argv = append(argv, units...)
		default:
			argv = append(argv, a)
		}
	}
	for _, u := range units {
		objects = append(objects, strings.TrimSuffix(u, filepath.Ext(u))+".o")
	}
	return append(argv, "-c"), objects, true
}

// compileSubmission compiles source (and extra, beside it) with l's compile command, linking the
// host's prebuilt objects (from the cache, built there on a miss) when l
// prebuilds them and there is a cache; else compiling the host's units too.
func (b *Builder) compileSubmission(ctx context.Context, l *Language, source []byte, extra []supportFile, lim CompileLimits, cpus []int) (*Build, error) {
	support, err := supportFiles(l)
	if err != nil {
		return nil, err
	}
	units := compileUnits(l, support)
	files := append(slices.Clip(support), supportFile{name: l.Source, data: source})
	files = append(files, extra...)
	var tc toolCacheMount
	if b.Cache != nil && l.ToolCache != "" {
		// A warm step that fails (an operator's toolchain) leaves this
		// compile a private, empty cache: slower, not wrong.
		if dir, err := b.warmToolCache(ctx, l, support, cpus); err == nil {
			tc = toolCacheMount{dir: dir}
		} else if ctx.Err() != nil {
			return nil, fmt.Errorf("lang: compile cancelled: %w", ctx.Err())
		}
	}
	var prebuilt *Build
	if b.Cache != nil {
		// A prebuild that fails (an operator's compiler that is not
		// gcc-like) falls back to compiling the units with the source.
		if pb, objects, err := b.prebuilt(ctx, l, support, units, lim, cpus); err == nil && pb != nil {
			prebuilt, units = pb, objects
			defer prebuilt.Close()
			for _, f := range pb.Files {
				data, err := os.ReadFile(f.Source)
				if err != nil {
					return nil, fmt.Errorf("lang: reading the %s host's prebuilt %s: %w", l.ID, f.Name, err)
				}
				files = append(files, supportFile{name: f.Name, data: data})
			}
		}
	}
	bd, err := b.compile(ctx, l, files, compileArgs(l, units), lim, cpus, tc)
	if err != nil || prebuilt == nil {
		return bd, err
	}
	// The objects are the host's, kept in the cache: not part of the build.
	keep := bd.Files[:0]
	for _, f := range bd.Files {
		if !slices.Contains(units, f.Name) {
			keep = append(keep, f)
		}
	}
	bd.Files = keep
	return bd, nil
}

// prebuilt is the build of l's host units alone (their objects), from the
// cache or compiled and published there; nil when l does not prebuild.
func (b *Builder) prebuilt(ctx context.Context, l *Language, support []supportFile, units []string, lim CompileLimits, cpus []int) (*Build, []string, error) {
	argv, objects, ok := prebuildArgs(l, units)
	if !ok {
		return nil, nil, nil
	}
	key, err := b.keyOf(ctx, l, "tether-host-objects-1", argv, nil)
	if err != nil {
		return nil, nil, err
	}
	if bd, ok := b.Cache.get(key); ok {
		return bd, objects, nil
	}
	if _, failed := b.prebuildFailed.Load(key); failed {
		return nil, nil, fmt.Errorf("lang: the %s host's objects did not build before", l.ID)
	}
	b.prebuilds.Add(1)
	bd, err := b.compile(ctx, l, support, argv, lim, cpus, toolCacheMount{})
	if err != nil {
		if ctx.Err() == nil {
			b.prebuildFailed.Store(key, true)
		}
		return nil, nil, err
	}
	keep := bd.Files[:0]
	for _, f := range bd.Files {
		if slices.Contains(objects, f.Name) {
			keep = append(keep, f)
		}
	}
	bd.Files = keep
	if len(keep) != len(objects) {
		bd.Close()
		return nil, nil, fmt.Errorf("lang: the %s host's prebuild made %d of its %d objects", l.ID, len(keep), len(objects))
	}
	_ = b.Cache.put(key, bd) // a failed publish costs the next build its hit
	return bd, objects, nil
}

// compile writes files into a build dir of its own and runs argv there,
// with tc as the compiler's own cache when l has one (Language.ToolCache).
func (b *Builder) compile(ctx context.Context, l *Language, files []supportFile, argv []string, lim CompileLimits, cpus []int, tc toolCacheMount) (bd *Build, err error) {
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
	binds := append([]sandbox.Bind{{Path: src, Writable: true}}, l.Binds()...)
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

// selfExe makes dir/proc holding only self/exe, a link to the compiler
// (its real path, found by findTool), shown as the compile sandbox's /proc
// (Language.SelfExe).
func selfExe(dir, compiler string) (string, error) {
	if !filepath.IsAbs(compiler) {
		if p, err := exec.LookPath(compiler); err == nil {
			compiler = p
		}
	}
	proc := filepath.Join(dir, "proc")
	if err := os.MkdirAll(filepath.Join(proc, "self"), 0o755); err != nil {
		return "", fmt.Errorf("lang: /proc/self/exe for the compiler: %w", err)
	}
	if err := os.Symlink(compiler, filepath.Join(proc, "self", "exe")); err != nil {
		return "", fmt.Errorf("lang: /proc/self/exe for the compiler: %w", err)
	}
	for _, d := range []string{proc, filepath.Join(proc, "self")} {
		os.Chmod(d, 0o755)
	}
	return proc, nil
}

// resolveTool names argv[0] by its real path when it is a command found
// on PATH through symbolic links (Debian's /usr/bin/javac ->
// /etc/alternatives/javac -> /usr/lib/jvm/...): the sandbox shows the
// system dirs, not /etc/alternatives.
func resolveTool(argv []string) []string {
	argv, _ = resolveToolEnv(argv)
	return argv
}

// ToolEnv is what a command resolved by resolveTool needs in its
// environment: LD_ORIGIN_PATH, the dir the dynamic linker takes $ORIGIN
// (in an RPATH such as the JDK's $ORIGIN/../lib) to be for the program
// itself, which it otherwise reads from /proc/self/exe, absent in the
// sandbox. "" when nothing is needed.
func ToolEnv(argv []string) string {
	if len(argv) == 0 || !filepath.IsAbs(argv[0]) {
		return ""
	}
	return "LD_ORIGIN_PATH=" + filepath.Dir(argv[0])
}

func resolveToolEnv(argv []string) ([]string, string) {
	if len(argv) == 0 || strings.ContainsRune(argv[0], '/') {
		return argv, ""
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return argv, ""
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil || real == path || !filepath.IsAbs(real) {
		return argv, ""
	}
	out := append([]string{real}, argv[1:]...)
	return out, ToolEnv(out)
}

// HiddenToolError: a toolchain found on PATH only in folders the sandbox
// cannot see, so the compile step cannot run it (the judge's setup, not
// the submission's fault).
type HiddenToolError struct {
	Language, Name string
	Found          []string // where PATH has it
}

func (e *HiddenToolError) Error() string {
	return fmt.Sprintf("%s: %s is on PATH only at %s, which the sandbox cannot see (it shows the system dirs /usr, /bin, ...); "+
		"install the toolchain there (for Rust, Debian's rustc: apt-get install rustc) or add its folder to the %s language's paths in a languages file",
		e.Language, e.Name, strings.Join(e.Found, ", "), e.Language)
}

// findTool is the program the compile sandbox runs for a command's first
// word: a name with a slash as it is; else, by its real path, the first
// match on PATH the sandbox can see (under the system dirs or the
// language's Paths), passing over earlier ones it cannot (rustup's
// ~/.cargo/bin/rustc before Debian's /usr/bin/rustc). A name found
// nowhere is returned as given, for the sandbox to fail on; one found only
// out of sight is a *HiddenToolError.
func (l *Language) findTool(name string) (string, error) {
	if name == "" || strings.ContainsRune(name, '/') {
		return name, nil
	}
	binds := l.Binds()
	visible := func(p string) bool {
		if sandbox.SystemPath(p) {
			return true
		}
		for _, b := range binds {
			if p == b.Path || strings.HasPrefix(p, strings.TrimSuffix(b.Path, "/")+"/") {
				return true
			}
		}
		return false
	}
	var hidden []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		path, err := exec.LookPath(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			continue
		}
		if visible(path) && visible(real) {
			return real, nil
		}
		if !slices.Contains(hidden, path) {
			hidden = append(hidden, path)
		}
	}
	if len(hidden) > 0 {
		return "", &HiddenToolError{Language: l.ID, Name: name, Found: hidden}
	}
	return name, nil
}

// compileCommand is argv with its program chosen by findTool, and what
// that program needs in its environment (ToolEnv).
func (l *Language) compileCommand(argv []string) ([]string, string, error) {
	if len(argv) == 0 {
		return argv, "", nil
	}
	tool, err := l.findTool(argv[0])
	if err != nil {
		return nil, "", err
	}
	if tool == argv[0] {
		return argv, "", nil
	}
	out := append([]string{tool}, argv[1:]...)
	return out, ToolEnv(out), nil
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
	tail := &tailWriter{max: max}
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
					tail.Write(buf[:n])
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
	return tail.String(), usage, hit.Load(), nil
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
