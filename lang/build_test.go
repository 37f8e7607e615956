package lang

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/sandbox"
	"github.com/tether-dev/tether/sandbox/sandboxtest"
)

func testBuilder(t *testing.T, cache *Cache) *Builder {
	return &Builder{Runner: sandboxtest.Isolating(t), Cache: cache, Env: []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}, Host: "test"}
}

// lookup is the built-in language id.
func lookup(t *testing.T, id string) *Language {
	t.Helper()
	l, err := Builtin().Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// testCache is a build cache of the test's own.
func testCache(t *testing.T) *Cache {
	t.Helper()
	cache, err := OpenCache(filepath.Join(t.TempDir(), "cache"), 0)
	if err != nil {
		t.Fatal(err)
	}
	return cache
}

// cpp is the built-in C++ entry without its solution host: these tests
// build plain programs with a main.
func cpp(t *testing.T) *Language {
	l := lookup(t, "cpp")
	c := *l
	c.Support, c.SupportVersion = nil, ""
	c.Compile = []string{"g++", "-std=c++17", "-O2", "-pipe", "-o", "main", "{source}"}
	return &c
}

const helloCpp = "#include <cstdio>\nint main() { std::puts(\"hello\"); }\n"

// runBuilt runs a build's command in the sandbox and returns its stdout.
func runBuilt(t *testing.T, r sandbox.Runner, bd *Build) string {
	t.Helper()
	env := []string{"PATH=/usr/bin:/bin"}
	if e := ToolEnv(bd.Run); e != "" {
		env = append(env, e) // the JVM's
	}
	p, err := r.Start(context.Background(), sandbox.Spec{Args: bd.Run, Env: env, Files: bd.Files, Binds: bd.Binds,
		Limits: sandbox.Limits{Memory: 512 << 20, Pids: 32}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Stdin().Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() { defer close(done); out.ReadFrom(p.Stdout()) }()
	go func() { var e bytes.Buffer; e.ReadFrom(p.Stderr()) }()
	u, err := p.Wait()
	<-done
	if err != nil || u.ExitCode != 0 {
		t.Fatalf("run %v: %v, exit %d signal %d", bd.Run, err, u.ExitCode, u.Signal)
	}
	return out.String()
}

func TestCompileAndRunCpp(t *testing.T) {
	testenv.Toolchain(t, "g++")
	b := testBuilder(t, nil)
	bd, err := b.Build(context.Background(), Request{Language: cpp(t), Source: []byte(helloCpp), MemoryMB: 256})
	if err != nil {
		t.Fatal(err)
	}
	defer bd.Close()
	if bd.Stats.Cached || bd.Stats.TimeMs <= 0 {
		t.Errorf("stats %+v: want a compile that took time, not cached", bd.Stats)
	}
	if got := runBuilt(t, b.Runner, bd); got != "hello\n" {
		t.Errorf("ran: %q", got)
	}
	dir := bd.Dir
	bd.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Close left %s: %v", dir, err)
	}
}

func TestCompileErrorShowsTheCompilerLine(t *testing.T) {
	testenv.Toolchain(t, "g++")
	b := testBuilder(t, nil)
	_, err := b.Build(context.Background(), Request{Language: cpp(t), Source: []byte("int main() {\n  return undefined_name;\n}\n")})
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("err %v, want a CompileError", err)
	}
	if !strings.Contains(ce.Message, "main.cpp:2:") || !strings.Contains(ce.Message, "undefined_name") {
		t.Errorf("message lacks the compiler's line: %q", ce.Message)
	}
	if strings.Contains(ce.Message, os.TempDir()+"/") || strings.Contains(ce.Error(), "tether-sbx") {
		t.Errorf("message shows a host path: %q", ce.Message)
	}
	if !strings.Contains(ce.Reason, "status 1") {
		t.Errorf("reason %q", ce.Reason)
	}
}

// Compiler bombs end as a CompileError naming the limit, within it.
func TestCompilerBombs(t *testing.T) {
	testenv.Toolchain(t, "g++")
	b := testBuilder(t, nil)
	lim := DefaultCompileLimits.Over(CompileLimits{TimeLimitMs: 5000, CPUTimeLimitMs: 4000, MemoryLimitMB: 256, ExecutableLimitMB: 16})
	exponential := `template<int N> struct F { typedef typename F<N-1>::T T1; typedef typename F<N-1>::T T2; struct T { T1 a; T2 b; }; };
template<> struct F<0> { struct T { char c; }; };
int main() { return sizeof(F<40>::T) > 0 ? 0 : 1; }`
	for _, c := range []struct {
		name, source, saying string
	}{
		{"include /dev/zero", "#include \"/dev/zero\"\nint main(){}\n", "limit"},
		{"include /dev/random", "#include </dev/random>\nint main(){}\n", "limit"},
		{"exponential templates", exponential, "limit"},
		{"2 GiB initialised static array", "char a[1u<<31] = {1};\nint main(){ return a[5]; }\n", "limit"},
		{"100 MB source", "int main(){}\n//" + strings.Repeat("x", 100<<20), "source limit of 1024 KB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := b.Build(context.Background(), Request{Language: cpp(t), Source: []byte(c.source), Limits: lim})
			took := time.Since(start)
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("err %v, want a CompileError", err)
			}
			if !strings.Contains(ce.Reason, c.saying) {
				t.Errorf("reason %q does not say %q; message %q", ce.Reason, c.saying, lastChars(ce.Message, 300))
			}
			if took > lim.wall()+5*time.Second {
				t.Errorf("took %v, over the %v wall limit", took, lim.wall())
			}
			if len(ce.Message) > int(lim.OutputLimitKB<<10)+100 {
				t.Errorf("message of %d bytes, over the output limit", len(ce.Message))
			}
			t.Logf("%s: %s (%v)", c.name, ce.Reason, took)
		})
	}
}

func lastChars(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func TestCacheHitMissAndCorruption(t *testing.T) {
	testenv.Toolchain(t, "g++")
	cache := testCache(t)
	if info, _ := os.Stat(cache.Dir()); info.Mode().Perm() != 0o700 {
		t.Errorf("cache dir mode %v, want 0700", info.Mode().Perm())
	}
	b := testBuilder(t, cache)
	req := Request{Language: cpp(t), Source: []byte(helloCpp)}
	first, err := b.Build(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	first.Close()
	if first.Stats.Cached {
		t.Fatal("the first build was a hit")
	}
	start := time.Now()
	hit, err := b.Build(context.Background(), req)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if !hit.Stats.Cached {
		t.Fatal("the second build of the same source was not a hit")
	}
	t.Logf("hit in %v", took)
	if got := runBuilt(t, b.Runner, hit); got != "hello\n" {
		t.Errorf("the cached build ran: %q", got)
	}
	hit.Close()

	// Another source is a miss.
	other, err := b.Build(context.Background(), Request{Language: cpp(t), Source: []byte(helloCpp + "// other\n")})
	if err != nil {
		t.Fatal(err)
	}
	other.Close()
	if other.Stats.Cached {
		t.Error("another source was a hit")
	}

	// A corrupted entry is detected and rebuilt.
	key, err := b.key(context.Background(), req.Language, req.Source, nil)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(cache.entry(key), "main")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\necho pwned\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	rebuilt, err := b.Build(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer rebuilt.Close()
	if rebuilt.Stats.Cached {
		t.Error("a corrupted entry was used")
	}
	if got := runBuilt(t, b.Runner, rebuilt); got != "hello\n" {
		t.Errorf("the rebuilt build ran: %q", got)
	}
	again, err := b.Build(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	again.Close()
	if !again.Stats.Cached {
		t.Error("the rebuilt entry was not published")
	}
}

// A cache hit runs nothing: not the compiler, and not the compiler's
// version command, which the key needs and the process asks once per
// compiler binary (its path, size and modification time).
func TestCacheHitRunsNoCompiler(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	cc := filepath.Join(dir, "fakecc")
	script := "#!/bin/sh\necho \"$1\" >> " + runs + "\n" +
		"if [ \"$1\" = --version ]; then echo fakecc 1.0; exit 0; fi\n" +
		"printf '#!/bin/sh\\necho hi\\n' > main && chmod +x main\n"
	if err := os.WriteFile(cc, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	l := &Language{ID: "fake", Name: "Fake", Extensions: []string{".fake"}, Source: "main.fake",
		Compile: []string{cc, "{source}"}, Run: []string{"./main"}, Version: []string{cc, "--version"}}
	cache, err := OpenCache(filepath.Join(dir, "cache"), 0)
	if err != nil {
		t.Fatal(err)
	}
	b := &Builder{Runner: sandbox.NewPlain(), Cache: cache, Env: []string{"PATH=/usr/bin:/bin"}, Host: "test"}
	for i, src := range []string{"a", "b", "a", "b", "a"} {
		bd, err := b.Build(context.Background(), Request{Language: l, Source: []byte(src)})
		if err != nil {
			t.Fatal(err)
		}
		bd.Close()
		if bd.Stats.Cached != (i >= 2) {
			t.Fatalf("build %d (source %q): cached %v, want %v", i, src, bd.Stats.Cached, i >= 2)
		}
	}
	data, err := os.ReadFile(runs)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Fields(string(data)), []string{"--version", "main.fake", "main.fake"}; !slices.Equal(got, want) {
		t.Errorf("the compiler ran as %q over two misses and three hits, want %q (one version probe, one compile per miss)", got, want)
	}
}

// Two builders (two workers) sharing one cache dir, building the same
// source at once: both get a working build, and one good entry is left.
func TestCacheTwoBuildersAtOnce(t *testing.T) {
	testenv.Toolchain(t, "g++")
	dir := filepath.Join(t.TempDir(), "cache")
	var builds [2]*Build
	var errs [2]error
	var wg sync.WaitGroup
	for i := range builds {
		cache, err := OpenCache(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		b := testBuilder(t, cache)
		wg.Add(1)
		go func() {
			defer wg.Done()
			builds[i], errs[i] = b.Build(context.Background(), Request{Language: cpp(t), Source: []byte(helloCpp)})
		}()
	}
	wg.Wait()
	r := sandboxtest.Isolating(t)
	for i, bd := range builds {
		if errs[i] != nil {
			t.Fatalf("builder %d: %v", i, errs[i])
		}
		if got := runBuilt(t, r, bd); got != "hello\n" {
			t.Errorf("builder %d's build ran: %q", i, got)
		}
		bd.Close()
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 1 || strings.HasPrefix(names[0], ".") {
		t.Errorf("cache holds %v, want one entry", names)
	}
	cache, _ := OpenCache(dir, 0)
	bd, err := testBuilder(t, cache).Build(context.Background(), Request{Language: cpp(t), Source: []byte(helloCpp)})
	if err != nil || !bd.Stats.Cached {
		t.Errorf("after both: %v, cached %v", err, bd != nil && bd.Stats.Cached)
	}
	bd.Close()
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	dir := t.TempDir()
	cache, err := OpenCache(dir, 2500)
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	put := func(key string) {
		path := filepath.Join(src, key)
		os.WriteFile(path, bytes.Repeat([]byte{'x'}, 1000), 0o644)
		if err := cache.put(key, &Build{Files: []sandbox.File{{Name: "main", Source: path, Mode: 0o755}}}); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-time.Hour)
	put("a")
	os.Chtimes(filepath.Join(cache.entry("a"), manifestName), past, past)
	put("b")
	os.Chtimes(filepath.Join(cache.entry("b"), manifestName), past.Add(time.Minute), past.Add(time.Minute))
	if bd, ok := cache.get("a"); !ok { // a is used: b is now the least recent
		t.Fatal("a missing")
	} else {
		bd.Close()
	}
	put("c")
	for key, want := range map[string]bool{"a": true, "b": false, "c": true} {
		_, err := os.Stat(cache.entry(key))
		if got := err == nil; got != want {
			t.Errorf("entry %s kept %v, want %v", key, got, want)
		}
	}
}

func TestPrebuildArgs(t *testing.T) {
	for _, c := range []struct {
		id            string
		argv, objects []string
	}{
		{"cpp", []string{"g++", "-std=c++17", "-O2", "-pipe", "tether_host.cpp", "-c"}, []string{"tether_host.o"}},
		{"c", []string{"gcc", "-std=c11", "-O2", "-pipe", "tether.c", "-c"}, []string{"tether.o"}},
	} {
		l := lookup(t, c.id)
		support, err := supportFiles(l)
		if err != nil {
			t.Fatal(err)
		}
		argv, objects, ok := prebuildArgs(l, compileUnits(l, support))
		if !ok || strings.Join(argv, " ") != strings.Join(c.argv, " ") || strings.Join(objects, " ") != strings.Join(c.objects, " ") {
			t.Errorf("%s: prebuild %q making %q (%v), want %q making %q", c.id, argv, objects, ok, c.argv, c.objects)
		}
	}
	if _, _, ok := prebuildArgs(cpp(t), nil); ok {
		t.Error("a language without host units prebuilds")
	}
}

// The C++ host's object is compiled once into the cache and linked into
// every later submission; a corrupted object is compiled again.
func TestHostObjectPrebuiltOnceAndRebuiltWhenCorrupted(t *testing.T) {
	testenv.Toolchain(t, "g++")
	cache := testCache(t)
	b := testBuilder(t, cache)
	l := lookup(t, "cpp")
	build := func(n int) {
		t.Helper()
		src := fmt.Sprintf("#include \"tether.hpp\"\nlong long add(long long a, long long b) { return a + b + %d; }\nTETHER_EXPORT(add);\n", n)
		bd, err := b.Build(context.Background(), Request{Language: l, Source: []byte(src), MemoryMB: 256})
		if err != nil {
			t.Fatal(err)
		}
		defer bd.Close()
		for _, f := range bd.Files {
			if strings.HasSuffix(f.Name, ".o") {
				t.Errorf("the build carries the host's object %s", f.Name)
			}
		}
		if got := runBuilt(t, b.Runner, bd); got != "{\"type\":\"ready\"}\n" {
			t.Errorf("build %d said %q, want its ready line", n, got)
		}
	}
	build(1)
	build(2)
	if n := b.prebuilds.Load(); n != 1 {
		t.Fatalf("the host object was compiled %d times for two submissions, want once", n)
	}
	support, err := supportFiles(l)
	if err != nil {
		t.Fatal(err)
	}
	hb, _ := l.hostBuild(support)
	key, err := b.hostBuildKey(context.Background(), l, hb)
	if err != nil {
		t.Fatal(err)
	}
	obj := filepath.Join(cache.entry(key), hb.Outputs[0])
	if err := os.WriteFile(obj, []byte("not an object"), 0o644); err != nil {
		t.Fatal(err)
	}
	build(3)
	if n := b.prebuilds.Load(); n != 2 {
		t.Fatalf("after corrupting the cached object: %d host compiles, want 2 (a rebuild)", n)
	}
	if sum, _, err := fileSum(obj); err != nil || sum == "" {
		t.Fatalf("the rebuilt object is not in the cache: %v", err)
	}
}

// A toolchain on PATH in a folder the sandbox cannot see (rustup's
// ~/.cargo/bin before /usr/bin) is passed over for a later one it can
// see; one found only there is an error saying why and what to do, not
// a compile error and not a failed execve.
func TestToolchainTheSandboxCannotSeeIsPassedOver(t *testing.T) {
	gpp := testenv.Toolchain(t, "g++")
	hidden := t.TempDir() // under /tmp: no sandbox shows it
	for _, name := range []string{"g++", "tether-test-only-here"} {
		if err := os.Symlink(gpp, filepath.Join(hidden, name)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", hidden+string(filepath.ListSeparator)+os.Getenv("PATH"))
	l := cpp(t)
	got, err := l.findTool("g++")
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(gpp); got != want || strings.HasPrefix(got, hidden) {
		t.Errorf("findTool(g++) = %q, want the system one %q", got, want)
	}

	l.Compile = append([]string{"tether-test-only-here"}, l.Compile[1:]...)
	l.Version = []string{"tether-test-only-here", "--version"}
	b := testBuilder(t, nil)
	_, err = b.Build(context.Background(), Request{Language: l, Source: []byte(helloCpp)})
	var hte *HiddenToolError
	var ce *CompileError
	if !errors.As(err, &hte) || errors.As(err, &ce) {
		t.Fatalf("err %v: want a HiddenToolError (the judge's setup), not a compile error", err)
	}
	if msg := err.Error(); !strings.Contains(msg, hidden) || !strings.Contains(msg, "cannot see") || !strings.Contains(msg, "paths") {
		t.Errorf("message %q: want where it was found, why it cannot run, and the fix", msg)
	}
	if _, err := Version(context.Background(), l, nil); !errors.As(err, &hte) {
		t.Errorf("Version: %v, want the same HiddenToolError (tether doctor shows it)", err)
	}

	// The folder in the language's paths: the sandbox sees it, so it is chosen.
	l.Paths = []string{hidden}
	if _, err := l.findTool("tether-test-only-here"); err != nil {
		t.Errorf("with the folder in paths: %v", err)
	}
}

// A Go submission builds in the sandbox against the embedded SDK, offline.
// With a build cache, the compiler's GOCACHE is warmed once (the standard
// library and the SDK), by one of two builds that start at once, and shown
// read-only to every submission's compile: a third submission builds on
// it, and no compile of a submission adds anything to it (a hostile one
// cannot plant packages for the next).
func TestGoBuildsOnAWarmReadOnlyCache(t *testing.T) {
	testenv.Toolchain(t, "go")
	cache := testCache(t)
	b := testBuilder(t, cache)
	l := lookup(t, "go")
	build := func(n int) (*Build, error) {
		src := strings.Replace(l.Smoke, "args[1].(int64), nil", fmt.Sprintf("args[1].(int64) + %d, nil", n), 1)
		bd, err := b.Build(context.Background(), Request{Language: l, Source: []byte(src), MemoryMB: 256})
		if err == nil {
			t.Cleanup(func() { bd.Close() })
		}
		return bd, err
	}
	var wg sync.WaitGroup
	builds := make([]*Build, 3)
	errs := make([]error, 3)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			builds[i], errs[i] = build(i)
		}()
	}
	wg.Wait()
	if n := b.prebuilds.Load(); n != 1 {
		t.Errorf("GOCACHE warmed %d times for two builds at once, want once", n)
	}
	warmed, _ := filepath.Glob(filepath.Join(cache.Dir(), toolCachePrefix+"*"))
	if len(warmed) != 1 {
		t.Fatalf("tool caches %q, want one", warmed)
	}
	before := treeOf(t, warmed[0])
	builds[2], errs[2] = build(2)
	for i, bd := range builds {
		if errs[i] != nil {
			t.Fatalf("build %d: %v", i, errs[i])
		}
		if got := runBuilt(t, b.Runner, bd); got != "{\"type\":\"ready\"}\n" {
			t.Errorf("build %d said %q, want its ready line", i, got)
		}
	}
	if after := treeOf(t, warmed[0]); after != before {
		t.Errorf("a submission's compile changed the shared GOCACHE")
	}
	t.Logf("the compile on a warm GOCACHE took %d ms", builds[2].Stats.TimeMs)
}

// treeOf lists dir's files with their sizes and modification times.
func treeOf(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %v %v\n", path, info.Size(), info.Mode(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
