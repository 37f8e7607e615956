package judge

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sig"
)

// judgeAplusb judges source (saved as name) against a copy of
// examples/aplusb, whose problem.json declares add(a: bigint, b: bigint)
// -> bigint; evaluate replaces its evaluate.py when given. The copy's
// compile may take 5 minutes of wall time: tether.hpp, or Go on a GOCACHE
// being warmed, compiles slowly on a loaded machine, and the test is not
// about the compile limit.
func judgeAplusb(t *testing.T, name, source, evaluate string) *Result {
	t.Helper()
	testenv.Python3(t)
	from := filepath.Join("..", "examples", "aplusb")
	data, err := os.ReadFile(filepath.Join(from, "problem.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	so := doc["runtime_config"].(map[string]any)["solution"].(map[string]any)
	so["compile"] = map[string]any{"time_limit_ms": 300000, "cpu_time_limit_ms": 120000}
	data, _ = json.Marshal(doc)
	with := map[string]string{"problem.json": string(data)}
	if evaluate != "" {
		with["evaluate.py"] = evaluate
	}
	p := problemCopy(t, from, with)
	if p.Functions == nil || p.Functions.Function("add") == nil {
		t.Fatal("examples/aplusb declares no add")
	}
	return judgeSubmission(t, p, &Submission{Path: name, Code: []byte(source)}, Options{})
}

// aplusbFile is examples/aplusb's file at path: its solutions are the
// accepted case of each language's declared-functions test.
func aplusbFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "examples", "aplusb", filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestDeclaredFunctionsPython(t *testing.T) {
	const want = "def add(a: int, b: int) -> int"
	judgeDeclared(t, "solution.py", want, []declaredCase{
		{"only the function", "", "def add(a, b):\n    return a + b\n", Accepted, ""},
		{"defaults and *args are fine", "", "def add(a, b=0, *rest):\n    return a + b\n", Accepted, ""},
		{"registered under another name", "", "from tether_sdk.solution import register\ndef plus(a, b):\n    return a + b\nregister(\"add\", plus)\n", Accepted, ""},
		{"async", "", "async def add(a, b):\n    return a + b\n", CompileError, "main.py:1: add is async"},
		{"missing", "", "def plus(a, b):\n    return a + b\n", CompileError, "main.py: add is missing; the problem declares:\n    " + want},
		{"one parameter", "", "def add(a):\n    return a\n", CompileError, "main.py:1: add does not take 2 arguments; the problem declares:\n    " + want},
		{"syntax error", "", "def add(a, b)\n    return a + b\n", CompileError, "main.py:1:"},
		{"result of another type", "", "def add(a, b):\n    return str(a + b)\n", WrongAnswer, "add returned a string, expected an integer"},
		{"result beyond the declared nesting", "", "def add(a, b):\n    return [a + b]\n", WrongAnswer, "add returned a list, expected an integer"},
	})
}

func TestDeclaredFunctionsCpp(t *testing.T) {
	testenv.Toolchain(t, "g++")
	const want = "tether::json add(tether::json a, tether::json b)"
	only := aplusbFile(t, "solution.cpp")
	explicit := aplusbFile(t, "submissions/accepted/explicit_export.cpp")
	judgeDeclared(t, "solution.cpp", want, []declaredCase{
		{"only the function", "", only, Accepted, ""},
		{"explicit export still works", "", explicit, Accepted, ""},
		// Both compile against the standard library precompiled (lang's
		// TestPrecompiledHeader), as contestants include it.
		{"only the function, after <bits/stdc++.h>", "", "#include <bits/stdc++.h>\nusing namespace std;\n" + only, Accepted, ""},
		{"explicit export with <bits/stdc++.h>", "", strings.Replace(explicit, "#include \"tether.hpp\"\n", "#include \"tether.hpp\"\n#include <bits/stdc++.h>\n", 1), Accepted, ""},
		{"other parameter types", "", "long long add(long long a, long long b) { return a + b; }\n", CompileError,
			"static assertion failed: add does not have the declared signature: " + want},
		{"missing", "", "tether::json sub(tether::json a, tether::json b) { return a; }\n", CompileError, "'add' was not declared"},
	})
}

func TestDeclaredFunctionsJavaScript(t *testing.T) {
	testenv.Toolchain(t, "node")
	const want = "function add(a, b)"
	const sum = "BigInt(a) + BigInt(b)" // aplusb's cases pass 2^53 and reach 2^70
	judgeDeclared(t, "solution.js", want, []declaredCase{
		{"only the function", "", "function add(a, b) {\n  return " + sum + ";\n}\n", Accepted, ""},
		{"an arrow in a const", "", "const add = (a, b) => " + sum + ";\n", Accepted, ""},
		{"async and a default", "", "async function add(a, b = 0) {\n  return " + sum + ";\n}\n", Accepted, ""},
		{"explicit export still works", "", "module.exports = { add: (a, b) => " + sum + " };\n", Accepted, ""},
		{"an ES module", "solution.mjs", "function add(a, b) {\n  return " + sum + ";\n}\n", Accepted, ""},
		{"missing", "", "function plus(a, b) {\n  return a + b;\n}\n", CompileError,
			"main.js: add is missing; the problem declares:\n    " + want},
		{"one parameter", "", "function add(a) {\n  return a;\n}\n", CompileError,
			"main.js: add takes 1 parameter, not 2; the problem declares:\n    " + want},
		{"not a function", "", "const add = 3;\n", CompileError, "main.js: add is missing"},
		{"syntax error", "", "function add(a, b {\n  return a + b;\n}\n", CompileError, "main.js:1"},
		{"result of another type", "", "function add(a, b) {\n  return String(" + sum + ");\n}\n", WrongAnswer,
			"add returned a string, expected an integer"},
	})
}

func TestDeclaredFunctionsJava(t *testing.T) {
	testenv.Toolchain(t, "javac")
	const want = "static BigInteger add(BigInteger a, BigInteger b)"
	const imports = "import java.math.BigInteger;\n"
	judgeDeclared(t, "Solution.java", want, []declaredCase{
		{"only the function", "", imports + "class Solution {\n    static BigInteger add(BigInteger a, BigInteger b) { return a.add(b); }\n}\n", Accepted, ""},
		{"private and public classes", "", imports + "public class Solution {\n    private static BigInteger twice(BigInteger a) { return a.add(a); }\n" +
			"    static BigInteger add(BigInteger a, BigInteger b) { return twice(a).subtract(a).add(b); }\n}\n", Accepted, ""},
		{"explicit public methods still work", "", imports + "public class Solution {\n    public static BigInteger add(BigInteger a, BigInteger b) { return a.add(b); }\n}\n", Accepted, ""},
		{"other parameter types", "", "class Solution {\n    static long add(long a, long b) { return a + b; }\n}\n", CompileError,
			"incompatible types: BigInteger cannot be converted to long"},
		{"other result type", "", imports + "class Solution {\n    static String add(BigInteger a, BigInteger b) { return a.add(b).toString(); }\n}\n", CompileError,
			"incompatible types: String cannot be converted to BigInteger"},
		{"missing", "", imports + "class Solution {\n    static BigInteger plus(BigInteger a, BigInteger b) { return a.add(b); }\n}\n", CompileError,
			"cannot find symbol"},
		{"not static", "", imports + "class Solution {\n    BigInteger add(BigInteger a, BigInteger b) { return a.add(b); }\n}\n", CompileError,
			"non-static method add(BigInteger,BigInteger) cannot be referenced from a static context"},
	}, "// the problem declares: "+want)
}

func TestDeclaredFunctionsRust(t *testing.T) {
	testenv.Toolchain(t, "rustc")
	const want = "fn add(a: Value, b: Value) -> Value"
	only := aplusbFile(t, "solution.rs")
	judgeDeclared(t, "solution.rs", want, []declaredCase{
		{"only the function", "", only, Accepted, ""},
		{"its own imports", "", "use crate::tether::{self, Value};\nuse std::collections::BTreeMap;\n" + only, Accepted, ""},
		{"explicit export still works", "", "use crate::tether::Value;\n" + only + "tether_export!(add);\n", Accepted, ""},
		{"other parameter types", "", "fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n", CompileError, "expected fn pointer"},
		{"missing", "", "fn plus(a: Value, b: Value) -> Value {\n    a\n}\n", CompileError, "cannot find value `add` in this scope"},
	}, "// the problem declares: "+want)
}

func TestDeclaredFunctionsC(t *testing.T) {
	testenv.Toolchain(t, "gcc")
	const want = "tether_value *add(const tether_value *a, const tether_value *b)"
	only := aplusbFile(t, "solution.c")
	judgeDeclared(t, "solution.c", want, []declaredCase{
		{"only the function", "", only, Accepted, ""},
		{"explicit export still works", "", "#include \"tether.h\"\n" + strings.Replace(only, "tether_value *add(const tether_value *a, const tether_value *b) {",
			"static tether_value *sum(const tether_value *a, const tether_value *b) {", 1) +
			"tether_value *add(const tether_value *args) { return sum(tether_at(args, 0), tether_at(args, 1)); }\nTETHER_EXPORT(add)\n", Accepted, ""},
		{"other parameter types", "", "long long add(long long a, long long b) { return a + b; }\n", CompileError,
			"add does not have the declared signature: " + want},
		{"missing", "", "tether_value *plus(const tether_value *a, const tether_value *b) { return NULL; }\n", CompileError, "'add' undeclared"},
	})
}

func TestDeclaredFunctionsGo(t *testing.T) {
	testenv.Toolchain(t, "go")
	const want = "func add(a *big.Int, b *big.Int) *big.Int"
	const only = "package main\n\nimport \"math/big\"\n\nfunc add(a, b *big.Int) *big.Int {\n\treturn new(big.Int).Add(a, b)\n}\n"
	// The SDK's explicit form: a whole program that registers add itself.
	const explicit = "package main\n\nimport (\n\t\"context\"\n\t\"math/big\"\n\n\t\"github.com/tether-dev/tether/sdk/go/solution\"\n)\n\n" +
		"func wide(v any) *big.Int {\n\tif i, ok := v.(int64); ok {\n\t\treturn big.NewInt(i)\n\t}\n\treturn v.(*big.Int)\n}\n\n" +
		"func main() {\n\tsolution.Register(\"add\", func(_ context.Context, args []any) (any, error) {\n" +
		"\t\treturn new(big.Int).Add(wide(args[0]), wide(args[1])), nil\n\t})\n\tsolution.Serve()\n}\n"
	judgeDeclared(t, "solution.go", want, []declaredCase{
		{"only the function", "", only, Accepted, ""},
		{"explicit export still works", "", explicit, Accepted, ""},
		{"other parameter types", "", "package main\n\nfunc add(a, b int64) int64 {\n\treturn a + b\n}\n", CompileError,
			"main.go: add is func(a int64, b int64) int64; the problem declares:\n    " + want},
		{"missing", "", strings.Replace(only, "func add(", "func plus(", 1), CompileError,
			"main.go: add is missing; the problem declares:\n    " + want},
		{"a syntax error", "", strings.Replace(only, "{\n", "{{\n", 1), CompileError, "main.go:8:1: syntax error"},
		{"another package", "", strings.Replace(only, "package main", "package solution", 1), CompileError,
			"main.go: package solution: a Go solution is package main"},
	})
}

// sharedBuildCache is one build cache for the submissions of the package's
// tests: the C and C++ hosts' objects are compiled once and Go's GOCACHE is
// warmed (the standard library compiled) once, not per judged run; under
// `make test`, once for the packages of the run (testenv.SharedBuildCache).
// A test about the cache itself opens its own.
func sharedBuildCache(t *testing.T) *lang.Cache {
	t.Helper()
	c, err := sharedCache()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var sharedCacheDir string

var sharedCache = sync.OnceValues(func() (*lang.Cache, error) {
	if dir := testenv.SharedBuildCache(); dir != "" {
		return lang.OpenCache(dir, 0) // make test's, removed by make
	}
	dir, err := os.MkdirTemp("", "tether-judge-test-gocache-")
	if err != nil {
		return nil, err
	}
	sharedCacheDir = dir // removed by TestMain
	return lang.OpenCache(dir, 0)
})

// declaredCase is a solution of examples/aplusb's add and how it is judged.
type declaredCase struct {
	name   string
	file   string // the submission's file name; "" is judgeDeclared's
	source string
	status Status
	saying string // in the message or the compile step's output (curly quotes straightened)
}

// judgeDeclared judges each case, saved as file, against examples/aplusb.
// A CompileError's output must start by naming want, the expected
// signature, and hold each of alsoSaying.
func judgeDeclared(t *testing.T, file, want string, cases []declaredCase, alsoSaying ...string) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := file
			if c.file != "" {
				name = c.file
			}
			r := judgeAplusb(t, name, c.source, "")
			wantStatus(t, r, c.status)
			msg, _ := details(t, r)["message"].(string)
			out := strings.NewReplacer("‘", "'", "’", "'").Replace(msg + "\n" + r.Output)
			if !strings.Contains(out, c.saying) {
				t.Errorf("message %q, output %q: want %q", msg, r.Output, c.saying)
			}
			if c.status != CompileError {
				return
			}
			if strings.Contains(r.Output, sig.GoGlueFile) {
				t.Errorf("output %q shows the compiler's messages about the generated glue", r.Output)
			}
			for _, s := range append([]string{"the problem declares (problem.json functions):\n    " + want}, alsoSaying...) {
				if !strings.Contains(r.Output, s) {
					t.Errorf("output %q does not name the expected signature (%q)", r.Output, s)
				}
			}
		})
	}
}

// An evaluator that calls a declared function with an argument of the wrong
// type fails before anything is sent: the problem is at fault (SystemError),
// and the evaluator's stderr names the function, parameter and type.
func TestDeclaredWrongArgumentIsTheEvaluatorsFault(t *testing.T) {
	evaluate := "from tether_sdk.evaluator import solution, result\nsolution.add(\"1\", 2)\nresult.accept()\n"
	r := judgeAplusb(t, "solution.py", "def add(a, b):\n    return a + b\n", evaluate)
	wantStatus(t, r, SystemError)
	if r.Calls.Count != 0 {
		t.Errorf("%d calls reached the solution", r.Calls.Count)
	}
	if !strings.Contains(r.Output, "ArgumentTypeError: add: parameter a (bigint): want an integer, got a string") {
		t.Errorf("output %q does not name the parameter", r.Output)
	}
}

func TestDeclaredFunctionsLoadErrorNamesTheField(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "evaluate.py"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "problem.json"), []byte(`{"functions":[{"name":"add","params":[{"name":"a","type":"int"},{"name":"b","type":"integr"}],"result":"int"}]}`), 0o644)
	_, err := LoadProblem(dir, nil)
	var pe *ProblemError
	if !errors.As(err, &pe) || pe.Field != "functions[0].params[1].type" || !errors.Is(err, ErrBadProblemJSON) ||
		!strings.Contains(err.Error(), `unknown type "integr" (known: int, bigint,`) {
		t.Fatalf("got %v", err)
	}
}

// The templates tether problem templates writes compile and are judged
// WrongAnswer (their default result is wrong), not CompileError.
func TestDeclaredTemplatesAreWrongAnswer(t *testing.T) {
	p, err := LoadProblem("../examples/aplusb", nil)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := sig.Templates(p.Functions, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tm := range ts {
		t.Run(tm.Language, func(t *testing.T) {
			switch tm.Language {
			case "cpp":
				testenv.Toolchain(t, "g++")
			case "c":
				testenv.Toolchain(t, "gcc")
			case "javascript":
				testenv.Toolchain(t, "node")
			case "java":
				testenv.Toolchain(t, "javac")
			case "rust":
				testenv.Toolchain(t, "rustc")
			case "go":
				testenv.Toolchain(t, "go")
			}
			r := judgeAplusb(t, tm.File, string(tm.Text), "")
			wantStatus(t, r, WrongAnswer)
		})
	}
}
