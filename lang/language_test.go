package lang

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/tail"
	cppsdk "github.com/tether-dev/tether/sdk/cpp"
)

func TestResolveByNameAliasAndExtension(t *testing.T) {
	tab := Builtin()
	for _, c := range []struct{ explicit, file, want string }{
		// Neuro OJ's core sends these values as a task's language.
		{"python3", "", "python"}, {"python", "", "python"}, {"cpp", "", "cpp"}, {"c", "", "c"}, {"javascript", "", "javascript"},
		{"C++", "x.py", "cpp"}, {"cxx", "", "cpp"}, {"cc", "", "cpp"}, {"py", "", "python"}, {"js", "", "javascript"},
		{"node", "", "javascript"}, {"rs", "", "rust"}, {"java", "", "java"}, {"go", "", "go"},
		{"", "solution.cpp", "cpp"}, {"", "a/b/sol.CC", "cpp"}, {"", "main.c", "c"}, {"", "x.py", "python"},
		{"", "Solution.java", "java"}, {"", "m.mjs", "javascript"}, {"", "main.rs", "rust"}, {"", "main.go", "go"},
	} {
		l, err := tab.Resolve(c.explicit, c.file)
		if err != nil {
			t.Errorf("Resolve(%q, %q): %v", c.explicit, c.file, err)
			continue
		}
		if l.ID != c.want {
			t.Errorf("Resolve(%q, %q) = %s, want %s", c.explicit, c.file, l.ID, c.want)
		}
	}
}

func TestUnknownLanguageNamesTheKnownOnes(t *testing.T) {
	tab := Builtin()
	for _, c := range []struct{ explicit, file string }{{"cobol", ""}, {"", "x.cob"}, {"", "Makefile"}} {
		_, err := tab.Resolve(c.explicit, c.file)
		if !errors.Is(err, ErrUnknownLanguage) {
			t.Fatalf("Resolve(%q, %q): %v, want ErrUnknownLanguage", c.explicit, c.file, err)
		}
		for _, id := range []string{"c", "cpp", "go", "java", "javascript", "python", "rust"} {
			if !strings.Contains(err.Error(), id) {
				t.Errorf("Resolve(%q, %q): %q does not name %s", c.explicit, c.file, err, id)
			}
		}
	}
}

func TestAllowedNamesTheAcceptedLanguages(t *testing.T) {
	tab := Builtin()
	cpp, _ := tab.Lookup("cpp")
	if err := tab.Allowed(cpp, []string{"python3", "c++"}); err != nil {
		t.Fatalf("c++ among accepted: %v", err)
	}
	if err := tab.Allowed(cpp, nil); err != nil {
		t.Fatalf("no restriction: %v", err)
	}
	err := tab.Allowed(cpp, []string{"python3", "java"})
	if err == nil || !strings.Contains(err.Error(), "python, java") || !strings.Contains(err.Error(), "cpp") {
		t.Fatalf("cpp not accepted: %v", err)
	}
}

func TestPlainFileName(t *testing.T) {
	for name, want := range map[string]bool{
		"main.cpp": true, "Solution.java": true, "": false, ".": false, "..": false, "../x.cpp": false,
		"/etc/passwd": false, "a/b.c": false, `a\b.c`: false, "x\x00.c": false, "x\n.c": false,
	} {
		if got := PlainFileName(name); got != want {
			t.Errorf("PlainFileName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestLanguagesFile(t *testing.T) {
	tab, err := ParseFile([]byte(`{"languages": {
		"cpp": {"compile": ["g++-13", "-std=c++20", "-O2", "-o", "main", "{source}"]},
		"java": {"disabled": true},
		"kotlin": {"name": "Kotlin", "aliases": ["kt"], "extensions": [".kt"], "source": "main.kt",
		           "compile": ["kotlinc", "{source}"], "run": ["java", "-jar", "main.jar"],
		           "compile_limits": {"memory_limit_mb": 2048}}
	}}`), Builtin())
	if err != nil {
		t.Fatal(err)
	}
	cpp, _ := tab.Lookup("c++")
	if cpp.Compile[0] != "g++-13" || cpp.Run[0] != "./main" || cpp.Source != "main.cpp" {
		t.Errorf("cpp changed wrongly: %+v", cpp)
	}
	if builtin, _ := Builtin().Lookup("cpp"); builtin.Compile[0] != "g++" || len(builtin.Compile) != len(cppsdk.Compile) {
		t.Errorf("the file changed the built-in table's cpp compile too: %q", builtin.Compile)
	}
	if _, err := tab.Lookup("java"); !errors.Is(err, ErrDisabledLanguage) {
		t.Errorf("java: %v, want ErrDisabledLanguage", err)
	}
	if _, err := tab.ForFile("Solution.java"); err == nil {
		t.Errorf("a disabled language still claims .java")
	}
	kt, err := tab.Resolve("", "x.kt")
	if err != nil || kt.ID != "kotlin" || kt.Effective(CompileLimits{}).MemoryLimitMB != 2048 {
		t.Errorf("kotlin: %+v, %v", kt, err)
	}
	if strings.Contains(tab.Known()+",", "java,") {
		t.Errorf("Known lists a disabled language: %s", tab.Known())
	}

	for _, c := range []struct{ file, saying string }{
		{`{"languages": {"cpp": {"compiel": ["g++"]}}}`, "compiel"},
		{`{"languages": {"kotlin": {"run": ["x"]}}}`, "source"},
		{`{"languages": {"cpp": {"source": "../main.cpp"}}}`, "source"},
		{`{"languages": {"cpp": {"compile_limits": {"memory_limit_mb": -1}}}}`, "memory_limit_mb"},
		{`{"languages": {"cobol": {"source": "main.cob", "run": ["./a"], "aliases": ["cpp"]}}}`, "cpp"},
		{`[]`, ""},
	} {
		if _, err := ParseFile([]byte(c.file), Builtin()); err == nil || !strings.Contains(err.Error(), c.saying) {
			t.Errorf("%s: %v, want an error saying %q", c.file, err, c.saying)
		}
	}
}

func TestEffectiveLimits(t *testing.T) {
	l := &Language{ID: "x", Limits: CompileLimits{MemoryLimitMB: 2048, Processes: 7}}
	got := l.Effective(CompileLimits{Processes: 9, TimeLimitMs: 5})
	want := DefaultCompileLimits
	want.MemoryLimitMB, want.Processes, want.TimeLimitMs = 2048, 9, 5
	if got != want {
		t.Errorf("Effective = %+v, want %+v", got, want)
	}
}

func TestCompilerMessagesKeepUTF8Tail(t *testing.T) {
	kept := tail.New(10)
	for range 100 {
		kept.Write([]byte("é"))
	}
	s := compilerMessages(kept)
	if !strings.HasPrefix(s, "[earlier compiler messages cut]\n") || !strings.HasSuffix(s, "éé") {
		t.Errorf("tail %q", s)
	}
	body := strings.TrimPrefix(s, "[earlier compiler messages cut]\n")
	if strings.ToValidUTF8(body, "?") != body {
		t.Errorf("tail %q is not valid UTF-8", body)
	}
}

func TestCleanMessagesHidesHostPaths(t *testing.T) {
	dir := "/tmp/tether-sbx-1-build-123/src"
	got := cleanMessages(dir+"/main.cpp:3:5: error: x\nIn file included from "+dir+"/tether.hpp\n/tmp/tether-sbx-1-build-123/other\xff\n"+
		"/usr/bin/ld: /tmp/tether-sbx-30696-501152-8/cc0XOmBw.o: in function `main':\n", dir)
	if strings.Contains(got, "/tmp/") || strings.Contains(got, "tether-sbx") || !strings.Contains(got, "/usr/bin/ld: …/cc0XOmBw.o") || !strings.Contains(got, "main.cpp:3:5: error") || strings.ContainsRune(got, 0xff) {
		t.Errorf("cleaned: %q", got)
	}
}

// A source is saved under its own extension when the language has it:
// solution.mjs as main.mjs (an ES module to Node), not main.js. Only the
// extension of the submitter's file name counts.
func TestSourceNameFollowsTheExtension(t *testing.T) {
	js := lookup(t, "javascript")
	for _, c := range []struct{ file, want string }{
		{"solution.mjs", "main.mjs"}, {"../../x.MJS", "main.mjs"}, {"a.cjs", "main.cjs"},
		{"solution.js", "main.js"}, {"", "main.js"}, {"../../x.cpp", "main.js"}, {"mjs", "main.js"},
	} {
		if got := js.SourceFor(c.file).Source; got != c.want {
			t.Errorf("SourceFor(%q) = %q, want %q", c.file, got, c.want)
		}
	}
	bd, err := (&Builder{}).Build(context.Background(), Request{Language: js, Source: []byte("export const add = (a, b) => a + b;\n"), FileName: "solution.mjs"})
	if err != nil {
		t.Fatal(err)
	}
	if bd.Files[0].Name != "main.mjs" || bd.Run[len(bd.Run)-1] != "main.mjs" {
		t.Errorf("files %v run %v: want main.mjs saved and run", bd.Files[0].Name, bd.Run)
	}
	if js.Source != "main.js" {
		t.Errorf("the table's entry changed: %q", js.Source)
	}
}
