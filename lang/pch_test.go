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

// A translation unit gets the first C++ header (tether.hpp and
// <bits/stdc++.h>; tether.hpp alone) whose includes it begins with, with
// nothing before them but other system headers, comments and #line marks:
// for any other, forcing the header in could change what the source means.
func TestPrecompiledHeaderCoversOnlyWhatASourceIncludesFirst(t *testing.T) {
	l := lookup(t, "cpp")
	add, err := sig.Parse(json.RawMessage(`[{"name": "add", "params": [{"name": "a", "type": "int"}], "result": "int"}]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	glued := func(src string) string { return string(sig.GlueFor("cpp", add, "main.cpp", []byte(src)).Source) }
	const body = "long long add(long long a) { return a; }\n"
	const std, host = "tether_stdcpp.hpp", "tether_pch.hpp"
	for _, c := range []struct {
		name, source, want string
	}{
		{"declared functions after <bits/stdc++.h>", glued("#include <bits/stdc++.h>\nusing namespace std;\n" + body), std},
		{"both, either order, comments and blank lines", "// A + B\n\n/* one\n   two */\n#include<bits/stdc++.h>  // all\r\n#  include \"tether.hpp\"\n" + body, std},
		{"other system headers among them", "#include <cstdio>\n#include \"tether.hpp\"\n#include <bits/stdc++.h>\n#include <ext/pb_ds/assoc_container.hpp>\n" + body, std},
		{"declared functions after <iostream>", glued("#include <iostream>\nusing namespace std;\n" + body), host},
		{"declared functions after a #define", glued("#define _GLIBCXX_DEBUG\n#include <bits/stdc++.h>\n" + body), host},
		{"tether.hpp alone", "#include \"tether.hpp\"\n" + body, host},
		{"no tether.hpp before the code", "#include <bits/stdc++.h>\nusing namespace std;\n#include \"tether.hpp\"\n" + body, ""},
		{"a #define first", "#define _GLIBCXX_DEBUG\n#include \"tether.hpp\"\n#include <bits/stdc++.h>\n" + body, ""},
		{"a #pragma first", "#pragma GCC optimize(\"O3\")\n#include \"tether.hpp\"\n#include <bits/stdc++.h>\n" + body, ""},
		{"inside #if", "#if 1\n#include \"tether.hpp\"\n#include <bits/stdc++.h>\n#endif\n" + body, ""},
		{"a header of the source's own", "#include \"tether.hpp\"\n#include \"mine.h\"\n#include <bits/stdc++.h>\n" + body, ""},
		{"a continued line", "// \\\n#include \"tether.hpp\"\n" + body, ""},
		{"a comment that does not end", "/* #include \"tether.hpp\"\n", ""},
	} {
		got := ""
		if ps := l.precompiledFor([]byte(c.source)); len(ps) > 0 {
			got = ps[0].Name
		}
		if got != c.want {
			t.Errorf("%s: header %q, want %q:\n%s", c.name, got, c.want, c.source)
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

// With a build cache, a C++ submission that begins with tether.hpp and
// <bits/stdc++.h> compiles with both precompiled once: the declared
// functions and the explicit form build and start, GCC uses the header
// (read-only to the compile), and a compile error still names the
// submission's line. One with tether.hpp alone gets tether.hpp's header,
// one that defines a macro first none. A header cut short is not used
// (GCC would fail on it) but dropped, and headers that do not build leave
// the compiles as they were.
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
	// wantForced: the last compile forced in the header name ("" none),
	// from a dir it cannot write.
	wantForced := func(what, name string) {
		t.Helper()
		argv, binds := runner.last(), runner.lastBinds()
		got := ""
		if i := slices.Index(argv, "-include"); i >= 0 {
			got = strings.TrimPrefix(argv[i+1], pchDir+"/")
		}
		if got != name {
			t.Errorf("%s: the compile %q forces in %q, want %q", what, argv, got, name)
		}
		for _, bind := range binds {
			if bind.Target == pchDir && bind.Writable {
				t.Errorf("%s: the compile may write the precompiled header's dir %s", what, bind.Path)
			}
		}
	}
	const std, host = "tether_stdcpp.hpp", "tether_pch.hpp"

	for _, c := range []struct {
		what, src string
		d         *sig.Declaration
	}{{"the declared functions", stdcppDeclared, add}, {"the explicit form", stdcppExplicit, nil}} {
		bd, err := build(c.src, c.d)
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		wantForced(c.what, std)
		if got := runBuilt(t, b.Runner, bd); got != "{\"type\":\"ready\"}\n" {
			t.Errorf("%s said %q, want its ready line", c.what, got)
		}
	}
	var ce *CompileError
	if _, err := build(stdcppBroken, add); !errors.As(err, &ce) {
		t.Fatalf("a broken submission: %v, want a CompileError", err)
	}
	wantForced("a broken submission", std)
	if !strings.Contains(ce.Message, "main.cpp:4:") || !strings.Contains(ce.Message, "undefined_name") {
		t.Errorf("the compile error does not name the submission's line main.cpp:4:\n%s", ce.Message)
	}
	if !strings.Contains(ce.Message, "! "+std+".gch") {
		t.Errorf("GCC did not use the precompiled header (its -H lists no \"! %s.gch\"):\n%s", std, ce.Message)
	}

	bd, err := build(helloTether, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantForced("a source with tether.hpp alone", host)
	if got := runBuilt(t, b.Runner, bd); got != "{\"type\":\"ready\"}\n" {
		t.Errorf("a source with tether.hpp alone said %q, want its ready line", got)
	}
	if _, err := build("#define ANSWER 0\n"+strings.Replace(helloTether, "a + b", "a + b + ANSWER", 1), nil); err != nil {
		t.Fatal(err)
	}
	wantForced("a source that defines a macro first", "")
	if n, m := b.prebuilds.Load(), b.precompiles.Load(); n != 1 || m != 2 {
		t.Errorf("the host's object built %d times and %d headers precompiled for these submissions, want 1 and 2: each once", n, m)
	}

	cut, _ := filepath.Glob(filepath.Join(cache.Dir(), pchPrefix+"*", std+".gch"))
	if len(cut) != 1 {
		t.Fatalf("precompiled %s in the cache: %q, want one", std, cut)
	}
	if err := os.Truncate(cut[0], 1<<20); err != nil {
		t.Fatal(err)
	}
	if _, err := build(strings.Replace(stdcppDeclared, "0LL", "0LL + 0", 1), add); err != nil {
		t.Fatalf("with the header cut short: %v", err)
	}
	wantForced("with the header cut short", host)
	if _, err := os.Stat(filepath.Dir(cut[0])); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the header cut short is still in the cache (%v), to be used again", err)
	}

	// Headers that do not precompile (here: a language gcc does not know;
	// in practice an operator's compiler) leave each compile as it was,
	// and are not tried again for every submission.
	b = testBuilder(t, cache) // the host's object is in the cache
	b.Runner = runner
	lc := *l
	lc.Precompiled = nil
	for _, p := range l.Precompiled {
		broken := *p
		broken.Language = "no-such-language"
		lc.Precompiled = append(lc.Precompiled, &broken)
	}
	l = &lc
	for i := range 2 {
		src := strings.Replace(stdcppExplicit, "a + b", fmt.Sprintf("a + b + %d", i), 1)
		bd, err := build(src, nil)
		if err != nil {
			t.Fatalf("submission %d with headers that did not build: %v", i, err)
		}
		wantForced("with headers that did not build", "")
		if got := runBuilt(t, b.Runner, bd); got != "{\"type\":\"ready\"}\n" {
			t.Errorf("submission %d with headers that did not build said %q, want its ready line", i, got)
		}
	}
	if n := b.precompiles.Load(); n != 2 {
		t.Errorf("%d headers precompiled, want 2: each tried once", n)
	}
}

// helloTether serves add with the host's explicit form, tether.hpp alone.
const helloTether = "#include \"tether.hpp\"\nlong long add(long long a, long long b) { return a + b; }\nTETHER_EXPORT(add);\n"

// The header's key holds the compile flags and the host's files, so either
// changing makes another.
func TestPrecompiledHeaderKey(t *testing.T) {
	testenv.Toolchain(t, "g++")
	b := testBuilder(t, testCache(t))
	l := lookup(t, "cpp")
	key := func(l *Language, i int) string {
		t.Helper()
		k, err := b.pchKey(context.Background(), l, l.Precompiled[i])
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	base := key(l, 0)
	o1 := *l
	o1.Compile = slices.Clone(l.Compile)
	o1.Compile[slices.Index(o1.Compile, "-O2")] = "-O1"
	host := *l
	host.SupportVersion += "-changed"
	if key(&o1, 0) == base || key(&host, 0) == base || key(l, 1) == base {
		t.Error("the header's key does not change with the flags, the host's files or the header")
	}
	if key(l.SourceFor("x.cc"), 0) != base {
		t.Error("a .cc source's header is another than a .cpp source's")
	}
}
