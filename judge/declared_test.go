package judge

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/sandbox/sandboxtest"
	"github.com/tether-dev/tether/sig"
)

// judgeAplusb judges source (saved as name) against a copy of
// examples/aplusb, whose problem.json declares add(a: bigint, b: bigint)
// -> bigint; evaluate replaces its evaluate.py when given. The copy's
// compile may take 2 minutes: tether.hpp compiles slowly on a loaded
// machine, and the test is not about the compile limit.
func judgeAplusb(t *testing.T, name, source, evaluate string) *Result {
	t.Helper()
	testenv.Python3(t)
	dir := t.TempDir()
	for _, f := range []string{"problem.json", "evaluate.py"} {
		data, err := os.ReadFile(filepath.Join("..", "examples", "aplusb", f))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case f == "evaluate.py" && evaluate != "":
			data = []byte(evaluate)
		case f == "problem.json":
			var doc map[string]any
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			so := doc["runtime_config"].(map[string]any)["solution"].(map[string]any)
			so["compile"] = map[string]any{"time_limit_ms": 120000, "cpu_time_limit_ms": 120000}
			data, _ = json.Marshal(doc)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(dir, 0o755)
	p, err := LoadProblem(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Functions == nil || p.Functions.Function("add") == nil {
		t.Fatal("examples/aplusb declares no add")
	}
	r, err := Run(context.Background(), p, &Submission{Path: name, Code: []byte(source)}, &Options{Runner: sandboxtest.Isolating(t)})
	if err != nil {
		t.Fatal(err)
	}
	checkResultSchema(t, r)
	return r
}

func TestDeclaredFunctionsPython(t *testing.T) {
	const want = "def add(a: int, b: int) -> int"
	for _, c := range []struct {
		name, source string
		status       Status
		saying       string // in the message or the compiler's output
	}{
		{"only the function", "def add(a, b):\n    return a + b\n", Accepted, ""},
		{"defaults and *args are fine", "def add(a, b=0, *rest):\n    return a + b\n", Accepted, ""},
		{"registered under another name", "from tether_sdk.solution import register\ndef plus(a, b):\n    return a + b\nregister(\"add\", plus)\n", Accepted, ""},
		{"async", "async def add(a, b):\n    return a + b\n", CompileError, "main.py:1: add is async"},
		{"missing", "def plus(a, b):\n    return a + b\n", CompileError, "main.py: add is missing; the problem declares:\n    " + want},
		{"one parameter", "def add(a):\n    return a\n", CompileError, "main.py:1: add does not take 2 arguments; the problem declares:\n    " + want},
		{"syntax error", "def add(a, b)\n    return a + b\n", CompileError, "main.py:1:"},
		{"result of another type", "def add(a, b):\n    return str(a + b)\n", WrongAnswer, "add returned a string, expected an integer"},
		{"result beyond the declared nesting", "def add(a, b):\n    return [a + b]\n", WrongAnswer, "add returned a list, expected an integer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := judgeAplusb(t, "solution.py", c.source, "")
			wantStatus(t, r, c.status)
			msg, _ := details(t, r)["message"].(string)
			if !strings.Contains(msg+"\n"+r.Output, c.saying) {
				t.Errorf("message %q, output %q: want %q", msg, r.Output, c.saying)
			}
			if c.status == CompileError && !strings.Contains(r.Output, "the problem declares (problem.json functions):\n    "+want) {
				t.Errorf("output %q does not name the expected signature", r.Output)
			}
		})
	}
}

func TestDeclaredFunctionsCpp(t *testing.T) {
	testenv.Toolchain(t, "g++")
	const want = "tether::json add(tether::json a, tether::json b)"
	only, err := os.ReadFile("../examples/aplusb/submissions/accepted/function_only.cpp")
	if err != nil {
		t.Fatal(err)
	}
	explicit, err := os.ReadFile("../examples/aplusb/solution.cpp")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, source string
		status       Status
		saying       string
	}{
		{"only the function", string(only), Accepted, ""},
		{"explicit export still works", string(explicit), Accepted, ""},
		{"other parameter types", "long long add(long long a, long long b) { return a + b; }\n", CompileError,
			"static assertion failed: add does not have the declared signature: " + want},
		{"missing", "tether::json sub(tether::json a, tether::json b) { return a; }\n", CompileError, "'add' was not declared"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := judgeAplusb(t, "solution.cpp", c.source, "")
			wantStatus(t, r, c.status)
			out := strings.NewReplacer("‘", "'", "’", "'").Replace(r.Output)
			if !strings.Contains(out, c.saying) {
				t.Errorf("output %q: want %q", r.Output, c.saying)
			}
			if c.status == CompileError && !strings.Contains(out, "the problem declares (problem.json functions):\n    "+want) {
				t.Errorf("output %q does not name the expected signature", r.Output)
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
			if tm.Language == "cpp" {
				testenv.Toolchain(t, "g++")
			}
			r := judgeAplusb(t, tm.File, string(tm.Text), "")
			wantStatus(t, r, WrongAnswer)
		})
	}
}
