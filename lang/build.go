package lang

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

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

	prebuilds      atomic.Int64 // hosts built alone (Language.HostBuild) and tool caches warmed, for tests
	precompiles    atomic.Int64 // headers precompiled (Language.Precompiled), for tests
	prebuildFailed sync.Map     // keys of those that would not build: not tried again
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

// compileSubmission compiles source (and extra, beside it). For a host
// that builds alone (Language.HostBuild), that is the host's build (from
// the cache when there is one) and the submission's compile against it;
// else l's compile command, host and source together.
func (b *Builder) compileSubmission(ctx context.Context, l *Language, source []byte, extra []supportFile, lim CompileLimits, cpus []int) (*Build, error) {
	support, err := supportFiles(l)
	if err != nil {
		return nil, err
	}
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
	own := append([]supportFile{{name: l.Source, data: source}}, extra...)
	if hb, ok := l.hostBuild(support); ok {
		host, err := b.prebuilt(ctx, l, hb, support, cpus)
		if err == nil {
			defer host.Close()
			var pch []sandbox.Bind
			hb.Submission, pch = b.withPrecompiled(ctx, l, source, hb.Submission, cpus)
			return b.compileAgainst(ctx, l, hb, host, support, own, lim, cpus, tc, pch...)
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("lang: compile cancelled: %w", ctx.Err())
		}
		// A host that does not build alone (an operator's compiler that
		// is not gcc-like) is compiled with the submission, as below.
	}
	return b.compile(ctx, l, append(slices.Clip(support), own...), compileArgs(l, compileUnits(l, support)), lim, cpus, tc)
}

// compileAgainst compiles the submission's own files with hb.Submission,
// beside the host's prebuilt files (host) and the support files hb names,
// with binds (a precompiled header's dir).
// The host's files it was given leave the build unless the run loads them
// (hb.Run); a compile that rewrote one of them (a Java solution declaring a
// class Tether) fails, as javac fails on compiling both at once.
func (b *Builder) compileAgainst(ctx context.Context, l *Language, hb HostBuild, host *Build, support, own []supportFile, lim CompileLimits, cpus []int, tc toolCacheMount, binds ...sandbox.Bind) (*Build, error) {
	var files []supportFile
	for _, f := range support {
		if slices.Contains(hb.Files, f.name) {
			files = append(files, f)
		}
	}
	given := map[string][]byte{}
	for _, f := range host.Files {
		data, err := os.ReadFile(f.Source)
		if err != nil {
			return nil, fmt.Errorf("lang: reading the %s host's prebuilt %s: %w", l.ID, f.Name, err)
		}
		given[f.Name] = data
		files = append(files, supportFile{name: f.Name, data: data})
	}
	bd, err := b.compile(ctx, l, append(files, own...), hb.Submission, lim, cpus, tc, binds...)
	if err != nil {
		return nil, err
	}
	rewrote := func(name string) (*Build, error) {
		bd.Close()
		return nil, &CompileError{Reason: fmt.Sprintf("compilation failed (%s declares a name the host has: its compile rewrote the host's %s)", l.Source, name),
			Stats: bd.Stats}
	}
	kept := bd.Files[:0]
	for _, f := range bd.Files {
		data, ok := given[f.Name]
		if !ok {
			kept = append(kept, f)
			continue
		}
		delete(given, f.Name)
		if now, err := os.ReadFile(f.Source); err != nil || !bytes.Equal(now, data) {
			return rewrote(f.Name)
		}
		if hb.Run {
			kept = append(kept, f)
		}
	}
	for _, f := range host.Files {
		if _, gone := given[f.Name]; gone {
			return rewrote(f.Name)
		}
	}
	bd.Files = kept
	return bd, nil
}
