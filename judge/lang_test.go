package judge

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sandbox/sandboxtest"
)

// stubCppTable is the built-in table with the C++ entry's host replaced
// by testdata/lang/stub_tether.hpp, included by every test solution.
func stubCppTable(t *testing.T) *lang.Table {
	t.Helper()
	if _, err := exec.LookPath("g++"); err != nil {
		testenv.Require(t, "TETHER_REQUIRE_LANGUAGES", errors.New("g++ is not installed"))
	}
	hpp, err := os.ReadFile(filepath.Join("testdata", "lang", "stub_tether.hpp"))
	if err != nil {
		t.Fatal(err)
	}
	var langs []*lang.Language
	for _, l := range lang.Builtin().Languages() {
		if l.ID == "cpp" {
			c := *l
			c.Support = fstest.MapFS{"tether.hpp": {Data: hpp}}
			c.SupportVersion = "stub"
			l = &c
		}
		langs = append(langs, l)
	}
	tab, err := lang.NewTable(langs)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// judgeCpp judges testdata/lang with a C++ solution.
func judgeCpp(t *testing.T, problemJSON, source string, opts Options, evaluate ...string) *Result {
	t.Helper()
	testenv.Python3(t)
	dir := t.TempDir()
	for _, name := range []string{"evaluate.py", "problem.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "lang", name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "problem.json" && problemJSON != "" {
			data = []byte(problemJSON)
		}
		if name == "evaluate.py" && len(evaluate) > 0 {
			data = []byte(evaluate[0])
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(dir, 0o755)
	p, err := LoadProblem(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Runner == nil {
		opts.Runner = sandboxtest.Isolating(t)
	}
	if opts.Languages == nil {
		opts.Languages = stubCppTable(t)
	}
	r, err := Run(context.Background(), p, &Submission{Path: "solution.cpp", Code: []byte(source)}, &opts)
	if err != nil {
		t.Fatal(err)
	}
	checkResultSchema(t, r)
	return r
}

const cppAdd = "#include \"tether.hpp\"\nlong long add(long long a, long long b) { return a + b; }\nTETHER_EXPORT(add);\n"

func TestCppSolutionVerdicts(t *testing.T) {
	for _, c := range []struct {
		name, source string
		want         Status
		saying       string
	}{
		{"accepted", cppAdd, Accepted, ""},
		{"wrong answer", "#include \"tether.hpp\"\nlong long add(long long a, long long b) { return a - b; }\n", WrongAnswer, "returned"},
		{"runtime error", "#include \"tether.hpp\"\n#include <cstdlib>\nlong long add(long long a, long long b) { if (b == 5) std::abort(); return a + b; }\n",
			RuntimeError, "add(-5, 5) failed"},
		{"time limit", "#include \"tether.hpp\"\nlong long add(long long a, long long b) { for (volatile long long i = 0;; i++) {} }\n",
			TimeLimitExceeded, ""},
		{"memory limit", "#include \"tether.hpp\"\n#include <cstring>\n#include <cstdlib>\nlong long add(long long a, long long b) {\n" +
			"  for (int i = 0; i < 64; i++) { char *p = (char*)std::malloc(16 << 20); if (!p) std::abort(); std::memset(p, 1, 16 << 20); }\n  return a + b; }\n",
			MemoryLimitExceeded, ""},
		{"compile error", "#include \"tether.hpp\"\nlong long add(long long a, long long b) {\n  return a + b + undefined_name;\n}\n",
			CompileError, "compilation failed"},
		{"crash before ready", "#include \"tether.hpp\"\n#include <cstdio>\n#include <cstdlib>\n" +
			"static int boom = (std::fputs(\"static init: boom\\n\", stderr), std::abort(), 0);\n" + cppAdd,
			RuntimeError, "the solution ended before it was ready: killed by SIGABRT"},
		{"exits before ready", "#include \"tether.hpp\"\n#include <cstdlib>\nstatic int quit = (std::exit(3), 0);\n" + cppAdd,
			RuntimeError, "exit status 3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := judgeCpp(t, "", c.source, Options{})
			if c.want == MemoryLimitExceeded && r.Sandbox == "rootless" {
				c.want = RuntimeError // rootless: an allocation fails instead (docs/sandbox.md)
			}
			wantStatus(t, r, c.want)
			if msg, _ := details(t, r)["message"].(string); !strings.Contains(msg, c.saying) {
				t.Errorf("message %q does not say %q", msg, c.saying)
			}
			if r.Language != "cpp" || r.Compile == nil {
				t.Fatalf("language %q compile %+v", r.Language, r.Compile)
			}
			if c.want != CompileError && (r.Compile.TimeMs <= 0 || r.Compile.Cached) {
				t.Errorf("compile %+v: want a compile that took time", *r.Compile)
			}
			switch c.name {
			case "compile error":
				if !strings.Contains(r.Output, "main.cpp:3:") || strings.Contains(r.Output, os.TempDir()+"/tether") {
					t.Errorf("output %q: want the compiler's line, no host path", r.Output)
				}
			case "crash before ready":
				if msg := details(t, r)["message"].(string); !strings.Contains(msg, "static init: boom") {
					t.Errorf("message %q lacks the stderr", msg)
				}
			case "accepted":
				// The compile is on no clock of the run: cpu_ms is the solution's alone.
				if r.CPUMs > r.Compile.TimeMs+2000 {
					t.Logf("cpu %d ms, compile %d ms", r.CPUMs, r.Compile.TimeMs)
				}
			}
		})
	}
}

// A solution restarted after a call timeout reuses the executable built
// once: the second call is answered by a fresh process of the same build.
func TestCppRestartReusesTheBuild(t *testing.T) {
	src := "#include \"tether.hpp\"\nlong long add(long long a, long long b) { if (b == 5) for (volatile int i = 0;; i++) {} return a + b; }\n"
	evaluate := `from tether_sdk.evaluator import SolutionRunner, SolutionTimeoutError, result
runner = SolutionRunner()
try:
    runner.call("add", -5, 5)
    result.wrong_answer("no timeout")
except SolutionTimeoutError:
    got = runner.call("add", 1, 2)
    if got == 3:
        result.accept(100.0)
    else:
        result.wrong_answer("after the restart: %r" % got)
`
	r := judgeCpp(t, "", src, Options{}, evaluate)
	wantStatus(t, r, Accepted)
	if r.Calls.Restarts != 1 || r.Compile == nil {
		t.Errorf("restarts %d compile %+v", r.Calls.Restarts, r.Compile)
	}
}

func TestLanguageRestrictedByTheProblem(t *testing.T) {
	r := judgeCpp(t, `{"runtime_config":{"solution":{"languages":["python3","java"]}}}`, cppAdd, Options{})
	wantStatus(t, r, CompileError)
	if msg := details(t, r)["message"].(string); !strings.Contains(msg, "python, java") || !strings.Contains(msg, "cpp") {
		t.Errorf("message %q", msg)
	}
}

func TestUnknownLanguageIsCompileErrorNamingTheKnown(t *testing.T) {
	testenv.Python3(t)
	dir := writeProblem(t, `{}`, "evaluate.py")
	p, _ := LoadProblem(dir, nil)
	r, err := Run(context.Background(), p, &Submission{Path: "x.cob", Code: []byte("x")}, &Options{Runner: sandboxtest.Isolating(t)})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, r, CompileError)
	if msg := details(t, r)["message"].(string); !strings.Contains(msg, "cpp") || !strings.Contains(msg, ".cob") {
		t.Errorf("message %q", msg)
	}
}

func TestCompileCachedAcrossRuns(t *testing.T) {
	cache, err := lang.OpenCache(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, cached := range []bool{false, true} {
		r := judgeCpp(t, "", cppAdd, Options{BuildCache: cache})
		wantStatus(t, r, Accepted)
		if r.Compile == nil || r.Compile.Cached != cached {
			t.Errorf("run %d: compile %+v, want cached %v", i, r.Compile, cached)
		}
	}
}
