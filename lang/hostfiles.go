package lang

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tether-dev/tether/sandbox"
)

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

// HostBuild is how a language's host is compiled alone, once, and how a
// submission is compiled against what that made (Language.HostBuild).
// Commands are argv, like Language.Compile.
type HostBuild struct {
	// Compile builds the host alone, in a build dir holding Support.
	Compile []string
	// Outputs name what Compile makes that submissions need (patterns of
	// path.Match: Java's nested classes); each must match a file.
	Outputs []string
	// Submission compiles the submission ({source}) in a build dir
	// holding Outputs, Files and the source, in place of Compile.
	Submission []string
	// Files are the files of Support that Submission reads (a header, a
	// crate root); the others, the host's sources, are left out.
	Files []string
	// Run: the run loads Outputs (Java's classes), so they stay in each
	// build; else Submission links them in and the build leaves them out.
	Run bool
}

// hostBuild is l's HostBuild, expanded, or the one PrebuildSupport derives
// from l's compile command; ok is false when l has neither.
func (l *Language) hostBuild(support []supportFile) (hb HostBuild, ok bool) {
	if l.HostBuild != nil {
		hb = *l.HostBuild
		hb.Compile, hb.Submission = l.expand(hb.Compile, 0), l.expand(hb.Submission, 0)
		return hb, true
	}
	units := compileUnits(l, support)
	argv, objects, ok := prebuildArgs(l, units)
	if !ok {
		return HostBuild{}, false
	}
	hb = HostBuild{Compile: argv, Outputs: objects, Submission: compileArgs(l, objects)}
	for _, f := range support {
		if !slices.Contains(units, f.name) {
			hb.Files = append(hb.Files, f.name)
		}
	}
	return hb, true
}

// matches reports whether name is one of hb's Outputs.
func (hb HostBuild) matches(name string) bool {
	return slices.ContainsFunc(hb.Outputs, func(pattern string) bool { return matchesFile(pattern, name) })
}

// missing is the first of hb's Outputs that none of files matches, "" if none.
func (hb HostBuild) missing(files []sandbox.File) string {
	for _, pattern := range hb.Outputs {
		if !slices.ContainsFunc(files, func(f sandbox.File) bool { return matchesFile(pattern, f.Name) }) {
			return pattern
		}
	}
	return ""
}

func matchesFile(pattern, name string) bool {
	ok, _ := path.Match(pattern, name)
	return ok
}

// prebuildArgs turns l's compile command into one that compiles only the
// host's units, each to its object in the build dir (gcc's and clang's
// -c), and names those objects. ok is false when l does not prebuild.
func prebuildArgs(l *Language, units []string) (argv, objects []string, ok bool) {
	if !l.PrebuildSupport || len(units) == 0 || !slices.Contains(l.Compile, "{support}") {
		return nil, nil, false
	}
	for _, u := range units {
		objects = append(objects, strings.TrimSuffix(u, filepath.Ext(u))+".o")
	}
	return append(compileFlags(l, units), "-c"), objects, true
}

// compileFlags are l's gcc-like compile command without its -o, {source}
// and -l arguments, units in place of {support}: the compiler and the
// flags a submission is compiled with, to compile something else with.
func compileFlags(l *Language, units []string) []string {
	var argv []string
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
	return argv
}

// hostBuildKey is the cache key of what hb.Compile makes of l's host.
func (b *Builder) hostBuildKey(ctx context.Context, l *Language, hb HostBuild) (string, error) {
	return b.keyOf(ctx, l, "tether-host-build-1", hb.Compile, []byte(strings.Join(hb.Outputs, "\x00")))
}

// prebuilt is the build of l's host alone (hb.Compile's Outputs): from
// the cache or compiled and published there, by one build of this process
// at a time (the others wait for it); without a cache, compiled for this
// submission alone, so a submission compiles the same way, and gets the
// same verdict, with the cache or without it (Rust's orphan rule treats
// the host as another crate only when it is one).
func (b *Builder) prebuilt(ctx context.Context, l *Language, hb HostBuild, support []supportFile, cpus []int) (*Build, error) {
	if b.Cache == nil {
		return b.buildHostAlone(ctx, l, hb, support, cpus)
	}
	key, err := b.hostBuildKey(ctx, l, hb)
	if err != nil {
		return nil, err
	}
	if bd, ok := b.Cache.get(key); ok {
		return bd, nil
	}
	unlock, err := lockKey(ctx, key)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if bd, ok := b.Cache.get(key); ok {
		return bd, nil
	}
	if _, failed := b.prebuildFailed.Load(key); failed {
		return nil, fmt.Errorf("lang: the %s host did not build alone before", l.ID)
	}
	bd, err := b.buildHostAlone(ctx, l, hb, support, cpus)
	if err != nil {
		if ctx.Err() == nil {
			b.prebuildFailed.Store(key, true)
		}
		return nil, err
	}
	_ = b.Cache.put(key, bd) // a failed publish costs the next build its hit
	return bd, nil
}

// buildHostAlone compiles l's host alone with hb.Compile and keeps its
// Outputs. It is compiled with the language's own compile limits: it is
// the judge's cost, shared by every problem.
func (b *Builder) buildHostAlone(ctx context.Context, l *Language, hb HostBuild, support []supportFile, cpus []int) (*Build, error) {
	b.prebuilds.Add(1)
	bd, err := b.compile(ctx, l, support, hb.Compile, l.Effective(CompileLimits{}), cpus, toolCacheMount{})
	if err != nil {
		return nil, err
	}
	bd.Files = slices.DeleteFunc(bd.Files, func(f sandbox.File) bool { return !hb.matches(f.Name) })
	if pattern := hb.missing(bd.Files); pattern != "" {
		bd.Close()
		return nil, fmt.Errorf("lang: the %s host's build alone (%s) made no %s", l.ID, strings.Join(hb.Compile, " "), pattern)
	}
	return bd, nil
}
