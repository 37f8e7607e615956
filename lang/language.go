package lang

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tether-dev/tether/sandbox"
)

// Language is one entry of the language table: how a submission in it is
// saved, compiled and run. Commands are argv (no shell); in them
// {source} is the source file name and {memory_mb} the solution's memory
// limit in MiB (a JVM sizes its heap with it).
type Language struct {
	ID         string   `json:"-"`
	Name       string   `json:"name,omitempty"`       // for people: "C++17"
	Aliases    []string `json:"aliases,omitempty"`    // other names a submission may give
	Extensions []string `json:"extensions,omitempty"` // ".cpp"; a file with one is in this language
	Source     string   `json:"source,omitempty"`     // the file name the source is saved as
	Compile    []string `json:"compile,omitempty"`    // nil: no compile step
	Run        []string `json:"run,omitempty"`        // run in the solution's work dir
	Version    []string `json:"version,omitempty"`    // prints the toolchain's version
	// Paths are host paths (globs) the toolchain needs beyond the system
	// dirs, shown read-only to the compiler and the solution (the JDK's
	// /etc/java-17-openjdk); those that do not exist are left out.
	Paths []string `json:"paths,omitempty"`
	// Limits of the compile step; a zero field is the default's
	// (DefaultCompileLimits), a problem's own limits win over these.
	Limits   CompileLimits `json:"compile_limits,omitzero"`
	Disabled bool          `json:"disabled,omitempty"`
	// SelfExe: the compiler reads /proc/self/exe to find its own files
	// (Debian's rustc 1.63 panics without it). The compile sandbox has no
	// /proc, so it gets one holding only self/exe, a link to the compiler.
	SelfExe bool `json:"self_exe,omitempty"`
	// OutOfMemory is what the runtime writes to stderr when it ends a
	// solution that reached a memory limit it enforces itself, below the
	// sandbox's (the JVM's heap, -Xmx{memory_mb}m, with
	// -XX:+ExitOnOutOfMemoryError): the judge counts such an ending as the
	// memory limit, like the sandbox's own. "" for none.
	OutOfMemory string `json:"out_of_memory,omitempty"`
	// Smoke is a solution serving add(a, b), which tether doctor builds
	// and starts until it is ready; "" skips that test.
	Smoke string `json:"smoke,omitempty"`
	// Support holds the language's solution host (headers, the host's
	// sources), written beside the source before compiling; nil: none.
	Support fs.FS `json:"-"`
	// SupportVersion names Support's content in the build cache's key.
	SupportVersion string `json:"-"`
	// HostBuild compiles the host alone, once per toolchain, host version
	// and command with a build cache (which keeps what that makes; without
	// one, once per submission), and each submission against it
	// (hostfiles.go); nil:
	// the host is compiled with each submission, or, with
	// PrebuildSupport, HostBuild is derived from Compile. A languages
	// file's compile of its own drops it.
	HostBuild *HostBuild `json:"-"`
	// PrebuildSupport derives HostBuild from a gcc-like Compile: the
	// host's compile units ({support}) are compiled with it turned into
	// `-c` (its -o, {source} and -l arguments dropped), and their objects
	// take their place in each submission's compile.
	PrebuildSupport bool `json:"-"`
	// Precompiled, with a build cache and GCC's g++, are headers of the
	// host and the standard library, each precompiled once per compiler,
	// flags and host version; the first whose includes a submission's
	// source begins with is forced into its compile (pch.go); nil: none.
	// Their flags are Compile's, a languages file's own too.
	Precompiled []*PrecompiledHeader `json:"-"`
	// CompileEnv is added to the compile step's environment (Go's
	// GOPROXY=off, GOFLAGS=-mod=mod, ...).
	CompileEnv []string `json:"-"`
	// ToolCache names the environment variable of the compiler's own
	// cache dir (Go's GOCACHE). With a build cache, that dir is filled
	// once per toolchain, host and Warm by compiling Warm, a trusted
	// program, and shown read-only to every submission's compile
	// (toolcache.go); without one, each compile gets an empty private dir.
	ToolCache string `json:"-"`
	// Warm is the program (saved as Source, beside Support) whose compile
	// fills ToolCache: the host and what submissions commonly import.
	Warm string `json:"-"`
	// Outputs are the built files the run needs (Go's executable, not the
	// SDK's sources beside it); nil: every file of the build dir.
	Outputs []string `json:"-"`
}

// outputs are the files of a build the run needs (Outputs).
func (l *Language) outputs(files []sandbox.File) []sandbox.File {
	if len(l.Outputs) == 0 {
		return files
	}
	return slices.DeleteFunc(files, func(f sandbox.File) bool { return !slices.Contains(l.Outputs, f.Name) })
}

// SourceFor is l with its source saved under the extension of fileName
// when that is one of l's other extensions (solution.mjs is main.mjs, an
// ES module to Node; solution.cc is main.cc), else l itself. Only the
// extension of fileName is used, never its name or folder (a Neuro OJ
// file_name is the submitter's).
func (l *Language) SourceFor(fileName string) *Language {
	ext := strings.ToLower(filepath.Ext(fileName))
	base := filepath.Ext(l.Source)
	if ext == "" || ext == strings.ToLower(base) || !slices.Contains(l.Extensions, ext) {
		return l
	}
	c := *l
	c.Source = strings.TrimSuffix(l.Source, base) + ext
	return &c
}

// Binds are Paths as the sandbox's read-only binds.
func (l *Language) Binds() []sandbox.Bind {
	var binds []sandbox.Bind
	for _, pattern := range l.Paths {
		matches, _ := filepath.Glob(pattern)
		for _, m := range matches {
			binds = append(binds, sandbox.Bind{Path: m})
		}
	}
	return binds
}

// Compiled reports whether the language has a compile step.
func (l *Language) Compiled() bool { return len(l.Compile) > 0 }

// names are the ID and the aliases.
func (l *Language) names() []string { return append([]string{l.ID}, l.Aliases...) }

// expand replaces the placeholders of argv.
func (l *Language) expand(argv []string, memoryMB int64) []string {
	out := make([]string, len(argv))
	r := strings.NewReplacer("{source}", l.Source, "{memory_mb}", strconv.FormatInt(memoryMB, 10))
	for i, a := range argv {
		out[i] = r.Replace(a)
	}
	return out
}

// RunCommand is the argv that starts a submission in l, once built, for a
// solution with memoryMB of memory.
func (l *Language) RunCommand(memoryMB int64) []string { return l.expand(l.Run, memoryMB) }

// check says what is wrong with an entry, in the languages file's terms.
func (l *Language) check() error {
	switch {
	case l.ID == "" || strings.ContainsAny(l.ID, " /\\\t"):
		return fmt.Errorf("language id %q: want a word without spaces or slashes", l.ID)
	case l.Disabled:
		return nil
	case !PlainFileName(l.Source):
		return fmt.Errorf("language %q: source %q must be a plain file name (like main.cpp)", l.ID, l.Source)
	case len(l.Run) == 0 || l.Run[0] == "":
		return fmt.Errorf("language %q: run is empty", l.ID)
	case len(l.Compile) > 0 && l.Compile[0] == "":
		return fmt.Errorf("language %q: compile starts with an empty word", l.ID)
	}
	for _, e := range l.Extensions {
		if !strings.HasPrefix(e, ".") || len(e) < 2 {
			return fmt.Errorf("language %q: extension %q must start with a dot, like .cpp", l.ID, e)
		}
	}
	return l.Limits.check("language " + strconv.Quote(l.ID) + ": compile_limits")
}

// PlainFileName reports whether name is a file name and nothing more: not
// empty, no directory part, not "." or "..", no NUL or control byte.
// Neuro OJ forwards a submitter's file_name unchecked, so anything else is
// refused.
func PlainFileName(name string) bool {
	if name == "" || name == "." || name == ".." || len(name) > 255 {
		return false
	}
	for _, c := range []byte(name) {
		if c == '/' || c == '\\' || c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// ErrUnknownLanguage: a name that is no language of the table.
var ErrUnknownLanguage = errors.New("unknown language")

// ErrDisabledLanguage: a language the operator's languages file disabled.
var ErrDisabledLanguage = errors.New("language disabled on this judge")

// Table is a set of languages, found by id, alias or file extension. It is
// not changed once made, so it is safe for concurrent use.
type Table struct {
	langs  []*Language // sorted by ID
	byName map[string]*Language
	byExt  map[string]*Language
}

// NewTable makes a table of langs (checked; a later entry of the same id
// replaces an earlier one).
func NewTable(langs []*Language) (*Table, error) {
	byID := map[string]*Language{}
	for _, l := range langs {
		if err := l.check(); err != nil {
			return nil, err
		}
		byID[strings.ToLower(l.ID)] = l
	}
	t := &Table{byName: map[string]*Language{}, byExt: map[string]*Language{}}
	for _, l := range byID {
		t.langs = append(t.langs, l)
	}
	slices.SortFunc(t.langs, func(a, b *Language) int { return strings.Compare(a.ID, b.ID) })
	for _, l := range t.langs {
		for _, n := range l.names() {
			key := strings.ToLower(n)
			if other, ok := t.byName[key]; ok && other != l {
				return nil, fmt.Errorf("languages %q and %q both use the name %q", other.ID, l.ID, n)
			}
			t.byName[key] = l
		}
		if l.Disabled {
			continue
		}
		for _, e := range l.Extensions {
			key := strings.ToLower(e)
			if other, ok := t.byExt[key]; ok && other != l {
				return nil, fmt.Errorf("languages %q and %q both claim the extension %q", other.ID, l.ID, e)
			}
			t.byExt[key] = l
		}
	}
	return t, nil
}

// Languages are the table's entries, sorted by id, disabled ones included.
func (t *Table) Languages() []*Language { return slices.Clone(t.langs) }

// Known names the enabled languages, for error messages: "c, cpp, go, ...".
func (t *Table) Known() string {
	var ids []string
	for _, l := range t.langs {
		if !l.Disabled {
			ids = append(ids, l.ID)
		}
	}
	return strings.Join(ids, ", ")
}

// Lookup finds a language by id or alias, case-insensitively.
func (t *Table) Lookup(name string) (*Language, error) {
	l, ok := t.byName[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownLanguage, name, t.Known())
	}
	if l.Disabled {
		return nil, fmt.Errorf("%w: %q (enabled: %s)", ErrDisabledLanguage, l.ID, t.Known())
	}
	return l, nil
}

// ForFile finds the language of a file by its extension.
func (t *Table) ForFile(name string) (*Language, error) {
	ext := strings.ToLower(filepath.Ext(name))
	if l, ok := t.byExt[ext]; ok {
		return l, nil
	}
	if ext == "" {
		return nil, fmt.Errorf("%w: %q has no extension to tell its language by; name one (known: %s)", ErrUnknownLanguage, name, t.Known())
	}
	return nil, fmt.Errorf("%w: no language has the extension %q of %q; name one (known: %s)", ErrUnknownLanguage, ext, name, t.Known())
}

// Resolve is a submission's language: explicit when given (an id or an
// alias), else the one of fileName's extension.
func (t *Table) Resolve(explicit, fileName string) (*Language, error) {
	if strings.TrimSpace(explicit) != "" {
		return t.Lookup(explicit)
	}
	return t.ForFile(fileName)
}

// Allowed checks l against a problem's list of accepted languages (ids
// or aliases; empty accepts all). The error names the accepted ids.
func (t *Table) Allowed(l *Language, accepted []string) error {
	if len(accepted) == 0 {
		return nil
	}
	var ids []string
	for _, name := range accepted {
		id := strings.ToLower(name)
		if a, ok := t.byName[id]; ok {
			id = a.ID
		}
		if id == l.ID {
			return nil
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return fmt.Errorf("this problem does not accept %s submissions (runtime_config.solution.languages allows: %s)", l.ID, strings.Join(ids, ", "))
}
