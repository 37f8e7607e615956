package lang

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/sandbox"
	"github.com/tether-dev/tether/sig"
)

// Only a translation unit that begins by including what the C++ header
// includes (tether.hpp and <bits/stdc++.h>), with nothing before them but
// other system headers, comments and #line marks, gets it: for any other,
// forcing the header in could change what the source means.
func TestPrecompiledHeaderCoversOnlyWhatASourceIncludesFirst(t *testing.T) {
	p := lookup(t, "cpp").Precompiled
	add, err := sig.Parse(json.RawMessage(`[{"name": "add", "params": [{"name": "a", "type": "int"}], "result": "int"}]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	glued := func(src string) string { return string(sig.GlueFor("cpp", add, "main.cpp", []byte(src)).Source) }
	const body = "long long add(long long a) { return a; }\n"
	for _, c := range []struct {
		name, source string
		covered      bool
	}{
		{"declared functions after <bits/stdc++.h>", glued("#include <bits/stdc++.h>\nusing namespace std;\n" + body), true},
		{"both, either order, comments and blank lines", "// A + B\n\n/* one\n   two */\n#include<bits/stdc++.h>  // all\r\n#  include \"tether.hpp\"\n" + body, true},
		{"other system headers among them", "#include <cstdio>\n#include \"tether.hpp\"\n#include <bits/stdc++.h>\n#include <ext/pb_ds/assoc_container.hpp>\n" + body, true},
		{"declared functions without <bits/stdc++.h>", glued("#include <iostream>\nusing namespace std;\n" + body), false},
		{"no tether.hpp before the code", "#include <bits/stdc++.h>\nusing namespace std;\n#include \"tether.hpp\"\n" + body, false},
		{"a #define first", glued("#define _GLIBCXX_DEBUG\n#include <bits/stdc++.h>\n" + body), false},
		{"a #pragma first", glued("#pragma GCC optimize(\"O3\")\n#include <bits/stdc++.h>\n" + body), false},
		{"inside #if", glued("#if 1\n#include <bits/stdc++.h>\n#endif\n" + body), false},
		{"a header of the source's own", "#include \"tether.hpp\"\n#include \"mine.h\"\n#include <bits/stdc++.h>\n" + body, false},
		{"a continued line", glued("// \\\n#include <bits/stdc++.h>\n" + body), false},
		{"a comment that does not end", "#include \"tether.hpp\"\n/* #include <bits/stdc++.h>\n", false},
	} {
		if got := p.covers([]byte(c.source)); got != c.covered {
			t.Errorf("%s: covered %v, want %v:\n%s", c.name, got, c.covered, c.source)
		}
	}
}

const (
	stdcppDeclared = "#include <bits/stdc++.h>\nusing namespace std;\n" +
		"long long add(long long a, long long b) { vector<long long> v{a, b}; return accumulate(v.begin(), v.end(), 0LL); }\n"
	stdcppExplicit = "#include \"tether.hpp\"\n#include <bits/stdc++.h>\nusing namespace std;\n" +
		"long long add(long long a, long long b) { return a + b; }\nTETHER_EXPORT(add);\n"
	stdcppBroken = "#include <bits/stdc++.h>\nusing namespace std;\n\nlong long add(long long a, long long b) { return a + undefined_name; }\n"
)

// With a build cache, a C++ submission that begins with <bits/stdc++.h>
// compiles with the standard library and tether.hpp precompiled once: the
// declared functions and the explicit form both build and start, GCC uses
// the header (read-only to the compile), a compile error still names the
// submission's line, a source that does not begin with the header's
// includes compiles as before, a header cut short is not used (GCC would
// fail on it) but dropped, and a header that does not build leaves the
// compiles as they were.
func TestPrecompiledHeader(t *testing.T) {
	t.Parallel()
	testenv.Toolchain(t, "g++")
	add, err := sig.Parse(json.RawMessage(`[{"name": "add", "params": [{"name": "a", "type": "int"}, {"name": "b", "type": "int"}], "result": "int"}]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	// GCC's -H lists the headers it reads, "! path.gch" for a precompiled
	// one it uses: a compile that forces the header in says whether it did.
	runner := &recordingRunner{Runner: testBuilder(t, nil).Runner, rewrite: func(spec *sandbox.Spec) {
		if slices.Contains(spec.Args, "-include") {
			spec.Args = append(slices.Clip(spec.Args), "-H")
		}
	}}
	cache := testCache(t)
	b := testBuilder(t, cache)
	b.Runner = runner
	l := lookup(t, "cpp")
	build := func(src string, d *sig.Declaration) (*Build, error) {
		t.Helper()
		return buildPatiently(t, b, l, src, d)
	}
	wantForced := func(what string, forced bool) {
		t.Helper()
		argv, binds := runner.last(), runner.lastBinds()
		if got := slices.Contains(argv, "-include"); got != forced {
			t.Errorf("%s: the compile %q forces the header in: %v, want %v", what, argv, got, forced)
		}
		for _, bind := range binds {
			if bind.Target == pchDir && bind.Writable {
				t.Errorf("%s: the compile may write the precompiled header's dir %s", what, bind.Path)
			}
		}
	}

	for _, c := range []struct {
		what, src string
		d         *sig.Declaration
	}{{"the declared functions", stdcppDeclared, add}, {"the explicit form", stdcppExplicit, nil}} {
		bd, err := build(c.src, c.d)
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		wantForced(c.what, true)
		if got := runBuilt(t, b.Runner, bd); got != "{\"type\":\"ready\"}\n" {
			t.Errorf("%s said %q, want its ready line", c.what, got)
		}
	}
	var ce *CompileError
	if _, err := build(stdcppBroken, add); !errors.As(err, &ce) {
		t.Fatalf("a broken submission: %v, want a CompileError", err)
	}
	wantForced("a broken submission", true)
	if !strings.Contains(ce.Message, "main.cpp:4:") || !strings.Contains(ce.Message, "undefined_name") {
		t.Errorf("the compile error does not name the submission's line main.cpp:4:\n%s", ce.Message)
	}
	if !strings.Contains(ce.Message, "! tether_pch.hpp.gch") {
		t.Errorf("GCC did not use the precompiled header (its -H lists no \"! tether_pch.hpp.gch\"):\n%s", ce.Message)
	}
	if n := b.prebuilds.Load(); n != 2 {
		t.Errorf("%d trusted builds (the host's object, the header) for these submissions, want 2: each once", n)
	}

	bd, err := build(helloTether, nil)
	if err != nil {
		t.Fatal(err)
	}
	bd.Close()
	wantForced("a source without <bits/stdc++.h>", false)

	dirs, _ := filepath.Glob(filepath.Join(cache.Dir(), pchPrefix+"*"))
	if len(dirs) != 1 {
		t.Fatalf("precompiled header dirs in the cache: %q, want one", dirs)
	}
	if err := os.Truncate(filepath.Join(dirs[0], l.Precompiled.Name+".gch"), 1<<20); err != nil {
		t.Fatal(err)
	}
	if _, err := build(strings.Replace(stdcppDeclared, "0LL", "0LL + 0", 1), add); err != nil {
		t.Fatalf("with the header cut short: %v", err)
	}
	wantForced("with the header cut short", false)
	if _, err := os.Stat(dirs[0]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the header cut short is still in the cache (%v), to be used again", err)
	}

	// A header that does not precompile (here: a language gcc does not
	// know; in practice an operator's compiler) leaves each compile as it
	// was, and is not tried again for every submission.
	b = testBuilder(t, cache) // the host's object is in the cache
	b.Runner = runner
	lc := *l
	broken := *l.Precompiled
	broken.Language = "no-such-language"
	lc.Precompiled = &broken
	l = &lc
	for i := range 2 {
		src := strings.Replace(stdcppExplicit, "a + b", fmt.Sprintf("a + b + %d", i), 1)
		bd, err := build(src, nil)
		if err != nil {
			t.Fatalf("submission %d with a header that did not build: %v", i, err)
		}
		wantForced("with a header that did not build", false)
		if got := runBuilt(t, b.Runner, bd); got != "{\"type\":\"ready\"}\n" {
			t.Errorf("submission %d with a header that did not build said %q, want its ready line", i, got)
		}
	}
	if n := b.prebuilds.Load(); n != 1 {
		t.Errorf("%d trusted builds, want 1: the header tried once, the host's object from the cache", n)
	}
}

// helloTether serves add with the host's explicit form, without
// <bits/stdc++.h>.
const helloTether = "#include \"tether.hpp\"\nlong long add(long long a, long long b) { return a + b; }\nTETHER_EXPORT(add);\n"

// The header's key holds the compile flags and the host's files, so either
// changing makes another.
func TestPrecompiledHeaderKey(t *testing.T) {
	testenv.Toolchain(t, "g++")
	b := testBuilder(t, testCache(t))
	l := lookup(t, "cpp")
	key := func(l *Language) string {
		t.Helper()
		k, err := b.pchKey(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	base := key(l)
	o1 := *l
	o1.Compile = slices.Clone(l.Compile)
	o1.Compile[slices.Index(o1.Compile, "-O2")] = "-O1"
	host := *l
	host.SupportVersion += "-changed"
	cc := l.SourceFor("x.cc")
	if key(&o1) == base || key(&host) == base {
		t.Error("the header's key does not change with the flags or the host's files")
	}
	if key(cc) != base {
		t.Error("a .cc source's header is another than a .cpp source's")
	}
}
