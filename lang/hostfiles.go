package lang

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
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
