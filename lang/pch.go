package lang

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tether-dev/tether/sandbox"
)

// A C++ submission that includes <bits/stdc++.h> spends most of its
// compile (2 s of 2.5) parsing the standard library, and one that includes
// only tether.hpp a third of it parsing that. With a build cache, the
// judge precompiles the headers such sources begin with once (GCC's
// precompiled headers, trusted steps: no submission in them), keeps each
// in a dir of the build cache as it keeps Go's warmed GOCACHE
// (toolcache.go), and shows one read-only, at pchDir, to a compile that
// forces it in with -include.
//
// Only a source whose translation unit begins by including what a header
// includes gets it (PrecompiledHeader.covers): the header then stands for
// headers the source includes first, so the compile sees the same
// declarations, only from a file GCC has parsed before, and the source's
// own includes of them find their include guards. A source that includes,
// say, <iostream> and tether.hpp gets only tether.hpp's: forcing the whole
// standard library on it would change what it means (a global `count`
// under `using namespace std;` becomes ambiguous with std::count), and so
// could a #define or #pragma before the includes (_GLIBCXX_DEBUG), which
// ends the leading includes.
//
// GCC uses a precompiled header only with the options, and the compiler,
// it was made with; otherwise it reads the header's text, beside it in the
// same dir: slower, never different. So the header is made with the
// language's own compile flags, its key holds them, the compiler and the
// host's files, and a header that does not build (an operator's compiler)
// leaves compiles as they were.

// PrecompiledHeader is what a language precompiles (Language.Precompiled).
type PrecompiledHeader struct {
	// Name is the header's file name, forced in with -include.
	Name string
	// Includes are what it includes, as a source writes them
	// ("<bits/stdc++.h>", "\"tether.hpp\""); a quoted one is a Support file.
	Includes []string
	// Language is the header's language for gcc's -x ("c++-header").
	Language string
}

// pchDir is where compiles see a precompiled header's dir (read-only).
const pchDir = "/tether-pch"

// pchPrefix names a precompiled header's dir inside the build cache's dir.
// Like a warmed tool cache, the cache's eviction passes over it: there is
// one per header, compiler, flags and host version (C++: 100 MB with
// <bits/stdc++.h>, 28 MB without).
const pchPrefix = "pch-"

// text is the header's source.
func (p *PrecompiledHeader) text() []byte {
	var b strings.Builder
	for _, inc := range p.Includes {
		fmt.Fprintf(&b, "#include %s\n", inc)
	}
	return []byte(b.String())
}

// covers reports whether the translation unit source begins by including
// every header p includes, with nothing before them but other system
// headers' includes (<...>, which may come in any order), blank lines,
// comments and #line marks.
func (p *PrecompiledHeader) covers(source []byte) bool {
	includes := leadingIncludes(source)
	for _, want := range p.Includes {
		if !slices.Contains(includes, want) {
			return false
		}
	}
	for _, inc := range includes {
		if !slices.Contains(p.Includes, inc) && !strings.HasPrefix(inc, "<") {
			return false
		}
	}
	return true
}

// leadingIncludes are the header names (<...> or "...") of the #include
// lines source begins with, up to its first other line but blank lines,
// comments and #line marks (package sig's glue puts some before the
// source). Anything it does not read plainly (a continued line, a comment
// across lines after a directive) ends them.
func leadingIncludes(source []byte) []string {
	var names []string
	s := strings.TrimPrefix(string(source), "\ufeff")
	for {
		var ok bool
		if s, ok = skipBlanks(s); !ok || !strings.HasPrefix(s, "#") {
			return names
		}
		line, rest, _ := strings.Cut(s, "\n")
		line = strings.TrimSuffix(line, "\r")
		if strings.HasSuffix(line, "\\") {
			return names
		}
		directive := strings.TrimLeft(line[1:], " \t")
		switch {
		case strings.HasPrefix(directive, "include"):
			name, after, ok := headerName(strings.TrimLeft(directive[len("include"):], " \t"))
			if !ok || !endsLine(after) {
				return names
			}
			names = append(names, name)
		case strings.HasPrefix(directive, "line ") || directive != "" && directive[0] >= '0' && directive[0] <= '9':
			if strings.Contains(directive, "/*") {
				return names
			}
		default:
			return names
		}
		s = rest
	}
}

// skipBlanks is s after its leading white space and comments; ok is false
// for a comment that does not end plainly.
func skipBlanks(s string) (string, bool) {
	for {
		s = strings.TrimLeft(s, " \t\r\n\f\v")
		switch {
		case strings.HasPrefix(s, "//"):
			line, rest, _ := strings.Cut(s, "\n")
			if strings.HasSuffix(strings.TrimSuffix(line, "\r"), "\\") {
				return s, false
			}
			s = rest
		case strings.HasPrefix(s, "/*"):
			_, rest, found := strings.Cut(s[2:], "*/")
			if !found {
				return s, false
			}
			s = rest
		default:
			return s, true
		}
	}
}

// headerName reads <name> or "name" at the start of s.
func headerName(s string) (name, rest string, ok bool) {
	if s == "" {
		return "", "", false
	}
	closer := map[byte]byte{'<': '>', '"': '"'}[s[0]]
	if closer == 0 {
		return "", "", false
	}
	end := strings.IndexByte(s[1:], closer)
	if end < 0 {
		return "", "", false
	}
	return s[:end+2], s[end+2:], true
}

// endsLine: s, the rest of a directive's line, holds nothing but blanks
// and a // comment.
func endsLine(s string) bool {
	s = strings.TrimLeft(s, " \t")
	return s == "" || strings.HasPrefix(s, "//")
}

// gccLike reports whether l's compiler is GCC's g++, whose -include falls
// back to the header's text when its precompiled form does not fit (clang
// fails the compile instead).
func gccLike(ctx context.Context, l *Language, env []string) bool {
	tool, err := l.findTool(l.Compile[0])
	if err != nil {
		return false
	}
	if resolved, err := filepath.EvalSymlinks(tool); err == nil {
		tool = resolved
	}
	return strings.Contains(filepath.Base(tool), "g++") && !strings.Contains(strings.ToLower(toolchain(ctx, l, env)), "clang")
}

// precompiledFor are those of l's precompiled headers that the translation
// unit source begins by including (covers), in l's order: the first is the
// one to use, the next ones its fallbacks.
func (l *Language) precompiledFor(source []byte) []*PrecompiledHeader {
	var out []*PrecompiledHeader
	for _, p := range l.Precompiled {
		if p.covers(source) {
			out = append(out, p)
		}
	}
	return out
}

// withPrecompiled is argv, the compile of the translation unit source in
// l, with the first of l's precompiled headers it begins with forced in,
// and the bind that shows it; else (none covers it, none built) argv as
// it is.
func (b *Builder) withPrecompiled(ctx context.Context, l *Language, source []byte, argv []string, cpus []int) ([]string, []sandbox.Bind) {
	covering := l.precompiledFor(source)
	if b.Cache == nil || len(covering) == 0 || len(argv) == 0 || !gccLike(ctx, l, b.Env) {
		return argv, nil
	}
	for _, p := range covering {
		dir, err := b.precompiled(ctx, l, p, cpus)
		if err != nil {
			continue // the next that covers it, or without; a cancelled ctx ends that compile too
		}
		if !wholePCH(dir, p.Name) {
			// GCC ignores a .gch that is not one, but fails on a cut one:
			// this compile goes without it, the next makes it again.
			b.Cache.discard(dir)
			continue
		}
		forced := slices.Concat(argv[:1], []string{"-include", path.Join(pchDir, p.Name)}, argv[1:])
		return forced, []sandbox.Bind{{Path: dir, Target: pchDir}}
	}
	return argv, nil
}

// precompiled is the dir of l's precompiled header p (its text, the
// support files it includes and p.Name.gch), made on a miss at pchDir,
// where the compiles see it, with l's compile flags.
func (b *Builder) precompiled(ctx context.Context, l *Language, p *PrecompiledHeader, cpus []int) (string, error) {
	argv := pchArgs(l, p)
	key, err := b.pchKey(ctx, l, p)
	if err != nil {
		return "", err
	}
	return b.trustedDir(ctx, key, pchPrefix, fmt.Sprintf("the %s precompiled header %s", l.ID, p.Name), &b.precompiles, func(tmp string) error {
		support, err := supportFiles(l)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(tmp, p.Name), p.text(), 0o644); err != nil {
			return err
		}
		for _, f := range support {
			if slices.Contains(p.Includes, `"`+f.name+`"`) {
				if err := os.WriteFile(filepath.Join(tmp, filepath.FromSlash(f.name)), f.data, 0o644); err != nil {
					return err
				}
			}
		}
		// The judge's step: the language's limits, room for the header's
		// 100 MB and a loaded machine's wall time.
		lim := l.Effective(CompileLimits{})
		lim.ExecutableLimitMB = max(lim.ExecutableLimitMB, 1024)
		lim.TimeLimitMs = max(lim.TimeLimitMs, 120000)
		bd, err := b.compile(ctx, l, nil, argv, lim, cpus, toolCacheMount{}, sandbox.Bind{Path: tmp, Target: pchDir, Writable: true})
		if err != nil {
			return err
		}
		bd.Close()
		info, err := os.Stat(filepath.Join(tmp, p.Name+".gch"))
		if err != nil {
			return fmt.Errorf("%s made no %s.gch", strings.Join(argv, " "), p.Name)
		}
		return os.WriteFile(filepath.Join(tmp, pchSizeName), []byte(strconv.FormatInt(info.Size(), 10)), 0o644)
	})
}

// pchArgs precompiles p at pchDir with l's compile flags.
func pchArgs(l *Language, p *PrecompiledHeader) []string {
	header := path.Join(pchDir, p.Name)
	return append(compileFlags(l, nil), "-x", p.Language, "-o", header+".gch", header)
}

// pchKey is the key of l's precompiled header p: its command (the
// compiler and flags), the compiler's version, the host's files and p.
func (b *Builder) pchKey(ctx context.Context, l *Language, p *PrecompiledHeader) (string, error) {
	named := *l // one header, whatever the source's extension
	named.Source = p.Name
	return b.keyOf(ctx, &named, "tether-pch-1", pchArgs(l, p), p.text())
}

// pchSizeName holds, beside a precompiled header, the size it was made
// with (wholePCH).
const pchSizeName = "tether-pch-size"

// wholePCH reports whether the precompiled header name.gch in dir has the
// size it was made with.
func wholePCH(dir, name string) bool {
	want, err := os.ReadFile(filepath.Join(dir, pchSizeName))
	if err != nil {
		return false
	}
	info, err := os.Stat(filepath.Join(dir, name+".gch"))
	return err == nil && strconv.FormatInt(info.Size(), 10) == string(want)
}
