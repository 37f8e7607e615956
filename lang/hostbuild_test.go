package lang

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/sandbox"
	"github.com/tether-dev/tether/sig"
)

// recordingRunner is a Runner that keeps the argv and binds of every
// start, and changes the spec first with rewrite, when set.
type recordingRunner struct {
	sandbox.Runner
	rewrite func(*sandbox.Spec)
	mu      sync.Mutex
	argv    [][]string
	binds   [][]sandbox.Bind
}

func (r *recordingRunner) Start(ctx context.Context, spec sandbox.Spec) (sandbox.Process, error) {
	r.mu.Lock()
	r.argv = append(r.argv, slices.Clone(spec.Args))
	r.binds = append(r.binds, slices.Clone(spec.Binds))
	r.mu.Unlock()
	if r.rewrite != nil {
		r.rewrite(&spec)
	}
	return r.Runner.Start(ctx, spec)
}

func (r *recordingRunner) last() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.argv[len(r.argv)-1]
}

func (r *recordingRunner) lastBinds() []sandbox.Bind {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.binds[len(r.binds)-1]
}

// buildPatiently builds src in l (with d's glue when given) with the
// compile's time limits raised: a loaded machine; the tests are not about
// the limit. The build is closed when the test ends.
func buildPatiently(t *testing.T, b *Builder, l *Language, src string, d *sig.Declaration) (*Build, error) {
	t.Helper()
	lim := l.Effective(CompileLimits{})
	lim.TimeLimitMs, lim.CPUTimeLimitMs = 180000, 180000
	bd, err := b.Build(context.Background(), Request{Language: l, Source: []byte(src), Functions: d, Limits: lim, MemoryMB: 256})
	if err == nil {
		t.Cleanup(func() { bd.Close() })
	}
	return bd, err
}

// With a build cache, the Rust and Java hosts are compiled alone once
// and each submission against what that made: a submission, a
// declared-functions one (package sig's glue) and one that does not
// compile share it, their compiles never see the host's source, and the
// compiler's messages still name the submission's file and line. A Rust
// build leaves the host's library out (it is linked in); a Java build
// keeps the host's classes (the run loads them), and a solution that
// declares the host's class Tether is a compile error, as it is when both
// are compiled at once.
func TestHostBuiltAloneOnce(t *testing.T) {
	add, err := sig.Parse(json.RawMessage(`[{"name": "add", "params": [{"name": "a", "type": "int"}, {"name": "b", "type": "int"}], "result": "int"}]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id, tool, hostUnit string
		add                string // serves add(a, b)
		declared           string // add, for the declared functions
		broken, brokenAt   string // refers to undefined_name at brokenAt
		output             string // one of the host's outputs
		carried            bool   // the build carries output
		clash              string // declares a name of the host's; "" for none
	}{
		{
			id: "rust", tool: "rustc", hostUnit: "tether.rs",
			add:      "pub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n\ntether_export!(add);\n",
			declared: "fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n",
			broken:   "pub fn add(a: i64, b: i64) -> i64 {\n    a + undefined_name\n}\n\ntether_export!(add);\n", brokenAt: "main.rs:2:",
			output: "libtether.rlib",
		},
		{
			id: "java", tool: "javac", hostUnit: "Tether.java",
			add:      "public class Solution {\n    public static long add(long a, long b) { return a + b; }\n}\n",
			declared: "class Solution {\n    static long add(long a, long b) { return a + b; }\n}\n",
			broken:   "public class Solution {\n    public static long add(long a, long b) { return a + undefined_name; }\n}\n", brokenAt: "Solution.java:2:",
			output: "Tether.class", carried: true,
			clash: "public class Solution {\n    public static long add(long a, long b) { return a + b; }\n}\nclass Tether {\n}\n",
		},
	} {
		t.Run(c.id, func(t *testing.T) {
			t.Parallel()
			testenv.Toolchain(t, c.tool)
			runner := &recordingRunner{Runner: testBuilder(t, nil).Runner}
			b := testBuilder(t, testCache(t))
			b.Runner = runner
			l := lookup(t, c.id)
			build := func(what, src string, d *sig.Declaration) (*Build, error) {
				t.Helper()
				bd, err := buildPatiently(t, b, l, src, d)
				if err == nil {
					if argv := runner.last(); slices.Contains(argv, c.hostUnit) {
						t.Errorf("%s: the compile %q saw the host's source", what, argv)
					}
					if got := runBuilt(t, b.Runner, bd); got != "{\"type\":\"ready\"}\n" {
						t.Errorf("%s said %q, want its ready line", what, got)
					}
					carried := slices.ContainsFunc(bd.Files, func(f sandbox.File) bool { return f.Name == c.output })
					if carried != c.carried {
						t.Errorf("%s: the build carries the host's %s: %v, want %v", what, c.output, carried, c.carried)
					}
				}
				return bd, err
			}
			if _, err := build("a submission", c.add, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := build("the declared functions", c.declared, add); err != nil {
				t.Fatal(err)
			}
			var ce *CompileError
			if _, err := build("a broken submission", c.broken, nil); !errors.As(err, &ce) {
				t.Fatalf("a broken submission: %v, want a CompileError", err)
			}
			if !strings.Contains(ce.Message, c.brokenAt) || !strings.Contains(ce.Message, "undefined_name") {
				t.Errorf("the compile error does not name the submission's line %s:\n%s", c.brokenAt, ce.Message)
			}
			if c.clash != "" {
				if _, err := build("a clash with the host", c.clash, nil); !errors.As(err, &ce) {
					t.Errorf("a submission declaring a class of the host's: %v, want a CompileError", err)
				}
			}
			if n := b.prebuilds.Load(); n != 1 {
				t.Errorf("the host was built alone %d times for all these submissions, want once", n)
			}
		})
	}
}

// A host that does not build alone (here: a broken command; in practice
// an operator's toolchain) is compiled with the submission, as without a
// build cache.
func TestHostThatDoesNotBuildAloneIsCompiledWithTheSubmission(t *testing.T) {
	testenv.Toolchain(t, "javac")
	b := testBuilder(t, testCache(t))
	runner := &recordingRunner{Runner: b.Runner}
	b.Runner = runner
	l := *lookup(t, "java")
	hb := *l.HostBuild
	hb.Compile = append(slices.Clone(hb.Compile), "--no-such-javac-flag")
	l.HostBuild = &hb
	src := "public class Solution {\n    public static long add(long a, long b) { return a + b; }\n}\n"
	bd, err := b.Build(context.Background(), Request{Language: &l, Source: []byte(src), MemoryMB: 256})
	if err != nil {
		t.Fatal(err)
	}
	bd.Close()
	if argv := runner.last(); !slices.Contains(argv, "Tether.java") || !slices.Contains(argv, "Solution.java") {
		t.Errorf("the build compiled %q, want the host and the solution together", argv)
	}
	if n := b.prebuilds.Load(); n != 1 {
		t.Errorf("the host build alone ran %d times, want once (and failed)", n)
	}
}

// A submission's cache key changes with the host's files and with the
// commands of its build alone; a languages file that replaces the compile
// command drops the built-in build alone (its commands are the built-in
// command's), one that changes something else keeps it.
func TestHostBuildInTheKeyAndTheLanguagesFile(t *testing.T) {
	b := testBuilder(t, nil)
	key := func(l *Language) string {
		k, err := b.key(context.Background(), l, []byte("fn main() {}\n"), nil)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	rust := lookup(t, "rust")
	other := *rust
	other.Support = fstest.MapFS{"tether.rs": {Data: []byte("// another host\n")}}
	if key(&other) == key(rust) {
		t.Error("the key does not change with the host's files")
	}
	other = *rust
	hb := *rust.HostBuild
	hb.Submission = append(slices.Clone(hb.Submission), "-C", "debuginfo=2")
	other.HostBuild = &hb
	if key(&other) == key(rust) {
		t.Error("the key does not change with the submission's compile against the host")
	}

	tab, err := ParseFile([]byte(`{"languages": {"rust": {"compile": ["rustc", "-o", "main", "tether_main.rs"]}, "java": {"paths": ["/opt/jdk"]}}}`), Builtin())
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := tab.Lookup("rust"); l.HostBuild != nil {
		t.Error("rust with a compile command of the operator's still builds its host alone with the built-in commands")
	}
	if l, _ := tab.Lookup("java"); l.HostBuild == nil {
		t.Error("java with only its paths changed no longer builds its host alone")
	}
}

// A submission's compile gets copies of the host's prebuilt files: one
// that rewrites them (deleting one it may not write, making its own) or
// removes one is a compile error, and what the cache keeps for later submissions stays the
// trusted build's. Files the run does not load leave the build.
func TestSubmissionCannotAlterThePrebuiltHost(t *testing.T) {
	l := shellWithHost(t)
	cache := testCache(t)
	b := testBuilder(t, cache)
	build := func(src string) (*Build, error) {
		bd, err := b.Build(context.Background(), Request{Language: l, Source: []byte(src)})
		if err == nil {
			t.Cleanup(func() { bd.Close() })
		}
		return bd, err
	}
	bd, err := build("hello\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := runBuilt(t, b.Runner, bd); got != "host\nhello\n" {
		t.Errorf("the build ran %q, want the host's file then the source", got)
	}
	if !slices.ContainsFunc(bd.Files, func(f sandbox.File) bool { return f.Name == "host.out" }) {
		t.Error("the build does not carry the host's file the run loads")
	}
	var ce *CompileError
	if _, err := build("rewrite\n"); !errors.As(err, &ce) || !strings.Contains(ce.Reason, "host.out") {
		t.Fatalf("a compile that rewrote the host's file: %v, want a CompileError naming it", err)
	}
	if _, err := build("remove\n"); !errors.As(err, &ce) || !strings.Contains(ce.Reason, "host.out") {
		t.Fatalf("a compile that removed the host's file: %v, want a CompileError naming it", err)
	}
	hb, _ := l.hostBuild(nil)
	key, err := b.hostBuildKey(context.Background(), l, hb)
	if err != nil {
		t.Fatal(err)
	}
	host, ok := cache.get(key)
	if !ok {
		t.Fatal("the host's build is not in the cache")
	}
	defer host.Close()
	if got := runBuilt(t, b.Runner, &Build{Files: host.Files, Run: []string{"cat", "host.out"}}); got != "host\n" {
		t.Errorf("the cached host file now reads %q", got)
	}

	linked := *l.HostBuild
	linked.Run = false
	l.HostBuild = &linked
	bd, err = build("linked\n")
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(bd.Files, func(f sandbox.File) bool { return f.Name == "host.out" }) {
		t.Error("the build carries the host's file, linked into its executable")
	}
	if n := b.prebuilds.Load(); n != 1 {
		t.Errorf("the host was built alone %d times, want once", n)
	}
}

// shellWithHost is a language of sh whose host (host.txt) builds alone
// into host.out, which the run loads; a source holding "re" removes
// host.out in its compile, one holding "rewrite" plants its own.
func shellWithHost(t *testing.T) *Language {
	sh := testenv.Toolchain(t, "sh")
	return &Language{ID: "shell", Source: "main.txt", Extensions: []string{".txt"},
		Compile: []string{sh, "-c", "cat host.txt {source} > main"}, Run: []string{"cat", "main"},
		Support: fstest.MapFS{"host.txt": {Data: []byte("host\n")}}, SupportVersion: "test",
		HostBuild: &HostBuild{Compile: []string{sh, "-c", "cp host.txt host.out"}, Outputs: []string{"host.out"},
			Submission: []string{sh, "-c", "cat host.out {source} > main; grep -q re {source} && rm -f host.out; grep -q rewrite {source} && echo planted > host.out; true"},
			Run:        true}}
}

// Without a build cache a host that builds alone is still built alone, for
// each submission: a submission compiles the same way with the cache or
// without it (a Rust solution's impl that the orphan rule refuses across
// crates is a compile error in both).
func TestHostBuiltAloneWithoutACache(t *testing.T) {
	l := shellWithHost(t)
	b := testBuilder(t, nil)
	runner := &recordingRunner{Runner: b.Runner}
	b.Runner = runner
	for _, src := range []string{"hello\n", "again\n"} {
		bd, err := b.Build(context.Background(), Request{Language: l, Source: []byte(src)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { bd.Close() })
		if argv := runner.last(); !strings.Contains(argv[len(argv)-1], "cat host.out") {
			t.Errorf("the compile ran %q, want the submission's compile against the host's build", argv)
		}
		if got := runBuilt(t, b.Runner, bd); got != "host\n"+src {
			t.Errorf("the build ran %q, want the host's file then the source", got)
		}
	}
	if n := b.prebuilds.Load(); n != 2 {
		t.Errorf("the host was built alone %d times for two submissions without a cache, want twice", n)
	}
}
