package judge

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sandbox/sandboxtest"
)

// requireCpp skips (with TETHER_REQUIRE_LANGUAGES=1 fails) a test that
// needs g++.
func requireCpp(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("g++"); err != nil {
		testenv.Require(t, "TETHER_REQUIRE_LANGUAGES", errors.New("g++ is not installed (apt-get install g++)"))
	}
}

// judgeCpp judges testdata/lang with a C++ solution (the real C++ host,
// sdk/cpp).
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
	requireCpp(t)
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
		{"wrong answer", "#include \"tether.hpp\"\nlong long add(long long a, long long b) { return a - b; }\nTETHER_EXPORT(add);\n", WrongAnswer, "returned"},
		{"runtime error", "#include \"tether.hpp\"\n#include <cstdlib>\nlong long add(long long a, long long b) { if (b == 5) std::abort(); return a + b; }\nTETHER_EXPORT(add);\n",
			RuntimeError, "add(-5, 5) failed"},
		{"time limit", "#include \"tether.hpp\"\nlong long add(long long a, long long b) { for (volatile long long i = 0;; i++) {} }\nTETHER_EXPORT(add);\n",
			TimeLimitExceeded, ""},
		{"memory limit", "#include \"tether.hpp\"\n#include <cstring>\n#include <cstdlib>\nlong long add(long long a, long long b) {\n" +
			"  for (int i = 0; i < 64; i++) { char *p = (char*)std::malloc(16 << 20); if (!p) std::abort(); std::memset(p, 1, 16 << 20); }\n  return a + b; }\nTETHER_EXPORT(add);\n",
			MemoryLimitExceeded, ""},
		{"compile error", "#include \"tether.hpp\"\nlong long add(long long a, long long b) {\n  return a + b + undefined_name;\n}\nTETHER_EXPORT(add);\n",
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
				// The C++ host turns fd 2 into log frames before the solution's
				// static objects run, so what they wrote may be lost with them;
				// TestEndedBeforeReadyShowsItsStderr tests the stderr tail.
				t.Logf("message %q", details(t, r)["message"])
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
	src := "#include \"tether.hpp\"\nlong long add(long long a, long long b) { if (b == 5) for (volatile int i = 0;; i++) {} return a + b; }\nTETHER_EXPORT(add);\n"
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

// A submission's program that ends before ready is RuntimeError naming its
// exit status and the last lines of its stderr, whatever its language: here
// one of a test table whose run command is sh.
func TestEndedBeforeReadyShowsItsStderr(t *testing.T) {
	testenv.Python3(t)
	sh := &lang.Language{ID: "shell", Extensions: []string{".sh"}, Source: "main.sh", Run: []string{"sh", "{source}"}}
	tab, err := lang.NewTable(append(lang.Builtin().Languages(), sh))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := loadProblemFiles(t, dir, map[string]string{"problem.json": `{}`,
		"evaluate.py": "from tether_sdk.evaluator import SolutionRunner, result\nSolutionRunner().call('add', 1, 2)\nresult.accept(100.0)\n"}, 0o644)
	os.Chmod(dir, 0o755)
	src := "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo \"line $i\" >&2; done\necho 'cannot load libfoo.so' >&2\nexit 7\n"
	r, err := Run(context.Background(), p, &Submission{Path: "x.sh", Code: []byte(src)}, &Options{Runner: sandboxtest.Isolating(t), Languages: tab})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, r, RuntimeError)
	msg := details(t, r)["message"].(string)
	if !strings.Contains(msg, "ended before it was ready: exit status 7") || !strings.HasSuffix(msg, "line 12\ncannot load libfoo.so") ||
		strings.Contains(msg, "line 1\n") || strings.Contains(msg, "Traceback") {
		t.Errorf("message %q: want the exit status and the last lines of the stderr, not the evaluator's traceback", msg)
	}
}

// Every example with a C++ solution is Accepted with it.
func TestExamplesInCpp(t *testing.T) {
	requireCpp(t)
	testenv.Python3(t)
	sols, _ := filepath.Glob(filepath.Join("..", "examples", "*", "solution.cpp"))
	if len(sols) < 4 {
		t.Fatalf("only %d examples have a solution.cpp", len(sols))
	}
	runner := sandboxtest.Isolating(t)
	for _, sol := range sols {
		t.Run(filepath.Base(filepath.Dir(sol)), func(t *testing.T) {
			p, err := LoadProblem(filepath.Dir(sol), nil)
			if err != nil {
				t.Fatal(err)
			}
			sub, err := LoadSubmission(sol)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Run(context.Background(), p, sub, &Options{Runner: runner})
			if err != nil {
				t.Fatal(err)
			}
			checkResultSchema(t, r)
			wantStatus(t, r, Accepted)
		})
	}
}
