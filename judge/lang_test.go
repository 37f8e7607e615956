package judge

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sandbox/sandboxtest"
)

// toolchains are what a submission file's language needs on PATH, by
// the file's extension.
var toolchains = map[string][]string{
	".cpp": {"g++"}, ".c": {"gcc"}, ".java": {"javac", "java"}, ".js": {"node"}, ".mjs": {"node"}, ".rs": {"rustc"}, ".go": {"go"},
}

// requireToolchain skips (with TETHER_REQUIRE_LANGUAGES=1 fails) a test
// whose submission file's toolchain is missing.
func requireToolchain(t *testing.T, file string) {
	t.Helper()
	testenv.Python3(t) // every evaluator here is Python
	for _, tool := range toolchains[filepath.Ext(file)] {
		testenv.Toolchain(t, tool)
	}
}

// judgeLang judges testdata/lang (or problemJSON, or evaluate) with the
// source saved as file, whose extension picks the language and so its
// real host (sdk/<language>).
func judgeLang(t *testing.T, file, problemJSON, source string, opts Options, evaluate ...string) *Result {
	t.Helper()
	requireToolchain(t, file)
	with := map[string]string{}
	if problemJSON != "" {
		with["problem.json"] = problemJSON
	}
	if len(evaluate) > 0 {
		with["evaluate.py"] = evaluate[0]
	}
	p := problemCopy(t, filepath.Join("testdata", "lang"), with)
	return judgeSubmission(t, p, &Submission{Path: file, Code: []byte(source)}, opts)
}

// problemCopy copies the problem.json and evaluate.py of the problem
// folder from into a new folder, each replaced by its text in with when
// there, and loads it (the folder readable by the sandbox's user).
func problemCopy(t *testing.T, from string, with map[string]string) *Problem {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"problem.json", "evaluate.py"} {
		data, ok := with[name]
		if !ok {
			b, err := os.ReadFile(filepath.Join(from, name))
			if err != nil {
				t.Fatal(err)
			}
			data = string(b)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(dir, 0o755)
	p, err := LoadProblem(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// judgeSubmission judges sub against p with opts (by default in the
// isolating sandbox, with the tests' shared build cache) and checks the
// result against its schema.
func judgeSubmission(t *testing.T, p *Problem, sub *Submission, opts Options) *Result {
	t.Helper()
	if opts.BuildCache == nil {
		opts.BuildCache = sharedBuildCache(t)
	}
	if opts.Runner == nil {
		opts.Runner = sandboxtest.Isolating(t)
	}
	r, err := Run(context.Background(), p, sub, &opts)
	if err != nil {
		t.Fatal(err)
	}
	checkResultSchema(t, r)
	return r
}

const cppAdd = "#include \"tether.hpp\"\nlong long add(long long a, long long b) { return a + b; }\nTETHER_EXPORT(add);\n"

// languageVerdicts is, per language, what TestSolutionVerdictsInEveryLanguage
// judges: testdata/lang/verdicts/<file> (add, and add_* misbehaving one way
// each), a source its compiler refuses, and sources that end before ready.
var languageVerdicts = []struct {
	id, file string
	// exception is what the message of add_throw's failure says: the
	// exception's class (Python's host answers str(e) and the traceback,
	// whose last line names it).
	exception string
	// compileError is a source the compiler refuses at compilerLine
	// ("" for a language without a compile step).
	compileError, compilerLine string
	beforeReady                []beforeReady
}{
	{id: "python", file: "solution.py", exception: "\nIndexError: list index out of range",
		beforeReady: []beforeReady{
			// The Python, JavaScript and Java hosts are ready before they
			// load the solution, then answer each call with why it did not.
			{"raises at import", "raise RuntimeError('boom at import')\n", "add(1, 2) failed: solution import failed: RuntimeError: boom at import"},
			{"exits at once", "raise SystemExit(3)\n", "add(1, 2) failed: solution import failed: SystemExit: 3"},
		}},
	{id: "cpp", file: "solution.cpp", exception: "failed: std::out_of_range: ",
		compileError: "#include \"tether.hpp\"\nlong long add(long long a, long long b) {\n  return a + b + undefined_name;\n}\nTETHER_EXPORT(add);\n",
		compilerLine: "main.cpp:3:",
		beforeReady: []beforeReady{
			// The C++ host turns fd 2 into log frames before the solution's
			// static objects run, so what they write may be lost with them;
			// TestEndedBeforeReadyShowsItsStderr tests the stderr tail.
			{"static initializer aborts", "#include \"tether.hpp\"\n#include <cstdio>\n#include <cstdlib>\n" +
				"static int boom = (std::fputs(\"static init: boom\\n\", stderr), std::abort(), 0);\n" + cppAdd, "the solution ended before it was ready: killed by SIGABRT"},
			{"exits at once", "#include \"tether.hpp\"\n#include <cstdlib>\nstatic int quit = (std::exit(3), 0);\n" + cppAdd, "the solution ended before it was ready: exit status 3"},
		}},
	{id: "c", file: "solution.c", exception: "failed: ValueError: no such case",
		compileError: "#include \"tether.h\"\ntether_value *add(const tether_value *args) {\n  return undefined_name;\n}\nTETHER_EXPORT(add)\n",
		compilerLine: "main.c:3:",
		beforeReady: []beforeReady{
			{"segfault at load", "#include \"tether.h\"\n#include <signal.h>\n#include <stdio.h>\n" +
				"__attribute__((constructor)) static void boom(void) { fputs(\"loading: boom\\n\", stderr); raise(SIGSEGV); }\n" + cAdd,
				"the solution ended before it was ready: killed by SIGSEGV"},
			{"exits at once", "#include \"tether.h\"\n#include <stdlib.h>\n__attribute__((constructor)) static void quit(void) { exit(3); }\n" + cAdd,
				"the solution ended before it was ready: exit status 3"},
		}},
	{id: "java", file: "Solution.java", exception: "failed: java.lang.ArithmeticException: / by zero",
		compileError: "public class Solution {\n  public static long add(long a, long b) {\n    return a + b + undefinedName;\n  }\n}\n",
		compilerLine: "Solution.java:3:",
		beforeReady: []beforeReady{
			{"static initializer throws", "public class Solution {\n  static final int BOOM = Integer.parseInt(\"boom\");\n" +
				"  public static long add(long a, long b) { return a + b; }\n}\n",
				"add(1, 2) failed: solution import failed: java.lang.NumberFormatException: For input string: \"boom\""},
			{"no class Solution", "class Helper {\n  public static long add(long a, long b) { return a + b; }\n}\n",
				"add(1, 2) failed: solution import failed: java.lang.ClassNotFoundException: Solution"},
		}},
	{id: "javascript", file: "solution.js", exception: "failed: TypeError: Cannot read properties of null",
		beforeReady: []beforeReady{
			{"throws at load", "throw new RangeError('boom at load');\n", "add(1, 2) failed: solution import failed: RangeError: boom at load"},
			{"exits at once", "process.exit(3);\n", "add(1, 2) failed: SystemError: solution is gone: exit status 3"},
		}},
	{id: "go", file: "solution.go", exception: "failed: panic: no such case",
		compileError: "package main\n\nimport \"github.com/tether-dev/tether/sdk/go/solution\"\n\nfunc main() {\n\tsolution.Serve()\n\tundefinedName()\n}\n",
		compilerLine: "main.go:7:",
		beforeReady: []beforeReady{
			{"panics in init", "package main\n\nimport \"github.com/tether-dev/tether/sdk/go/solution\"\n\n" +
				"func init() { panic(\"boom at init\") }\n\nfunc main() { solution.Serve() }\n",
				"the solution ended before it was ready: exit status 2"},
			{"exits at once", "package main\n\nimport \"os\"\n\nfunc main() { os.Exit(3) }\n",
				"the solution ended before it was ready: exit status 3"},
		}},
	{id: "rust", file: "solution.rs", exception: "failed: NoSuchCase: no such case",
		compileError: "pub fn add(a: i64, b: i64) -> i64 {\n    a + b + undefined_name\n}\n\ntether_export!(add);\n",
		compilerLine: "main.rs:2:",
		beforeReady: []beforeReady{
			{"aborts at load", "extern \"C\" fn boom() {\n    eprintln!(\"loading: boom\");\n    std::process::abort();\n}\n" +
				"#[used]\n#[link_section = \".init_array\"]\nstatic BOOM: extern \"C\" fn() = boom;\n\n" + rustAdd, "the solution ended before it was ready: killed by SIGABRT"},
		}},
}

// slowCompile are compile limits for a busy machine: rustc -O of the
// Rust host takes 9 s of CPU, over 30 s of wall time when tests of other
// packages compile at once.
const slowCompile = `{"time_limit_ms": 180000, "cpu_time_limit_ms": 120000}`

// beforeReady is a solution that ends before it is ready, and what the
// RuntimeError's message says.
type beforeReady struct{ name, source, saying string }

const (
	cAdd = "tether_value *add(const tether_value *args) {\n" +
		"  return tether_int(tether_as_int(tether_at(args, 0)) + tether_as_int(tether_at(args, 1)));\n}\nTETHER_EXPORT(add)\n"
	rustAdd = "pub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n\ntether_export!(add);\n"
)

// Per language: a wrong answer, a runtime error, an exception, a time
// limit, a memory limit and a compile error get their verdicts; a solution
// that prints in every call is Accepted with its prints in the logs; one
// that ends before ready is RuntimeError naming how it ended. The
// functions of one source share one build (the build cache), so each
// language compiles it once.
func TestSolutionVerdictsInEveryLanguage(t *testing.T) {
	for _, lv := range languageVerdicts {
		t.Run(lv.id, func(t *testing.T) {
			requireToolchain(t, lv.file)
			source, err := os.ReadFile(filepath.Join("testdata", "lang", "verdicts", lv.file))
			if err != nil {
				t.Fatal(err)
			}
			opts := Options{BuildCache: sharedBuildCache(t), Runner: sandboxtest.Isolating(t)}
			problem := func(fn string) string {
				timeout := "2000"
				if fn == "add_hog" {
					timeout = "10000" // a JVM collects again and again before its heap is full
				}
				return `{"runtime_config": {"evaluator": {"command": "python3 evaluate.py ` + fn + `", "time_limit_ms": 30000},
  "solution": {"call_timeout_ms": ` + timeout + `, "memory_limit_mb": 256, "compile": ` + slowCompile + `}}}`
			}
			compiles := 0
			for _, c := range []struct {
				fn     string
				want   Status
				saying string
			}{
				{"add", Accepted, ""},
				{"add_wrong", WrongAnswer, "add(1, 2) returned -1"},
				{"add_crash", RuntimeError, "add(1, 2) failed"},
				{"add_throw", RuntimeError, "add(1, 2) failed"},
				{"add_spin", TimeLimitExceeded, "add(1, 2) timed out"},
				{"add_hog", MemoryLimitExceeded, ""},
				{"add_chatty", Accepted, ""},
			} {
				t.Run(c.fn, func(t *testing.T) {
					r := judgeLang(t, lv.file, problem(c.fn), string(source), opts)
					if c.want == MemoryLimitExceeded && r.Sandbox == "rootless" {
						c.want = RuntimeError // rootless: an allocation fails instead (docs/sandbox.md)
					}
					wantStatus(t, r, c.want)
					msg, _ := details(t, r)["message"].(string)
					if !strings.Contains(msg, c.saying) {
						t.Errorf("message %q: want it to say %q", msg, c.saying)
					}
					if c.fn == "add_throw" && (!strings.Contains(msg, lv.exception) || strings.Contains(msg, "SystemError:")) {
						t.Errorf("message %q: want the exception's class (%q), no bare SystemError", msg, lv.exception)
					}
					if r.Language != lv.id {
						t.Errorf("language %q, want %q", r.Language, lv.id)
					}
					if r.Compile != nil && !r.Compile.Cached {
						if compiles++; compiles > 1 {
							t.Errorf("compile %+v: want one build of this source, cached after the first run", *r.Compile)
						}
					}
					if c.fn == "add_chatty" {
						var prints []string
						for _, l := range r.Logs.Kept {
							if l.Stream == "stdout" && strings.HasPrefix(l.Data, "chatty: ") {
								prints = append(prints, strings.TrimSpace(l.Data))
							}
						}
						want := []string{"chatty: 1 + 2", "chatty: -5 + 5", "chatty: 123456789 + 987654321"}
						if !slices.Equal(prints, want) {
							t.Errorf("logs %+v: want the prints %q", r.Logs.Kept, want)
						}
					}
				})
			}
			if lv.compileError != "" {
				t.Run("compile error", func(t *testing.T) {
					r := judgeLang(t, lv.file, problem("add"), lv.compileError, opts)
					wantStatus(t, r, CompileError)
					if msg := details(t, r)["message"].(string); !strings.Contains(msg, "compilation failed") {
						t.Errorf("message %q", msg)
					}
					if !strings.Contains(r.Output, lv.compilerLine) || strings.Contains(r.Output, os.TempDir()+"/tether") {
						t.Errorf("output %q: want the compiler's line %s, no host path", r.Output, lv.compilerLine)
					}
				})
			}
			for _, c := range lv.beforeReady {
				t.Run(c.name, func(t *testing.T) {
					r := judgeLang(t, lv.file, problem("add"), c.source, opts)
					wantStatus(t, r, RuntimeError)
					msg, _ := details(t, r)["message"].(string)
					if !strings.Contains(msg, c.saying) || strings.Contains(msg, "BrokenPipe") || strings.Contains(msg, "evaluate.py") {
						t.Errorf("message %q: want how the solution ended (%q), not the evaluator's traceback", msg, c.saying)
					}
				})
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
	r := judgeLang(t, "solution.cpp", "", src, Options{}, evaluate)
	wantStatus(t, r, Accepted)
	if r.Calls.Restarts != 1 || r.Compile == nil {
		t.Errorf("restarts %d compile %+v", r.Calls.Restarts, r.Compile)
	}
}

func TestLanguageRestrictedByTheProblem(t *testing.T) {
	r := judgeLang(t, "solution.cpp", `{"runtime_config":{"solution":{"languages":["python3","java"]}}}`, cppAdd, Options{})
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
		r := judgeLang(t, "solution.cpp", "", cppAdd, Options{BuildCache: cache})
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

// An ES module solution (solution.mjs, export function add) is judged as
// one: saved as main.mjs and imported by the host. Its top-level await
// makes require() refuse it, as Node 18 refuses any ES module.
func TestJavaScriptModuleSolution(t *testing.T) {
	src := "const offset = await Promise.resolve(0);\nexport function add(a, b) {\n  return a + b + offset;\n}\n"
	r := judgeLang(t, "solution.mjs", "", src, Options{})
	wantStatus(t, r, Accepted)
	if r.Language != "javascript" {
		t.Errorf("language %q", r.Language)
	}
}
