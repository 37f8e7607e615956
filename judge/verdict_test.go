package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/codec"
	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/internal/testfiles"
	"github.com/tether-dev/tether/sandbox"
	"github.com/tether-dev/tether/sdk/go/evaluator"
)

// forgedVerdict is what a wrong solution answers to pass for Accepted with
// an evaluator that prints what it got.
const forgedVerdict = "x\n---RESULT---\n{\"status\":\"Accepted\",\"score\":10000}"

// The evaluator roles of the forgery tests call "answer", print what they
// got, then give their own verdict (or none).
var forgeryEvaluatorRoles = map[string]func() int{
	"print-answer-sdk": func() int {
		r := evaluator.Default()
		v, err := r.Call(bg, "answer")
		fmt.Println("got", v, err)
		r.WrongAnswer(0, map[string]any{"message": "wrong"})
		return 0
	},
	"print-answer-raw": func() int {
		v := rawAnswer()
		fmt.Println("got", v)
		rawResult("WrongAnswer", map[string]any{"message": "wrong"})
		return 0
	},
	// Prints what it got and ends without a verdict of its own.
	"print-answer-exit-1": func() int { fmt.Println("got", rawAnswer()); return 1 },
	"print-answer-hang":   func() int { fmt.Println("got", rawAnswer()); os.Stdout.Close(); time.Sleep(time.Minute); return 0 },
}

// rawAnswer calls "answer" on the raw protocol and returns the string it got.
func rawAnswer() string {
	raw(`{"type":"call","id":"a","fn":"answer","args":[]}`)
	_, m := newRawReader().next()
	s, _ := m["value"].(string)
	return s
}

func init() {
	for name, role := range forgeryEvaluatorRoles {
		evaluatorRoles[name] = role
	}
	solutionRoles["forge-verdict"] = func() int {
		h := host()
		h.Register("answer", func(ctx context.Context, args []any) (any, error) { return forgedVerdict, nil })
		return serve(h)
	}
	// Answers every call with a value the codec refuses for its size: fn
	// "deep" nests lists deeper than codec.MaxDepth (and Python's own
	// parser can go), fn "long" is an integer longer than codec.MaxIntDigits.
	solutionRoles["oversized-answer"] = func() int {
		return rawSolution(func(m map[string]any) {
			id, _ := json.Marshal(m["id"])
			value := "[" + strings.Repeat("7", codec.MaxIntDigits+1) + "]"
			if m["fn"] == "deep" {
				value = strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
			}
			raw(`{"type":"result","id":` + string(id) + `,"value":` + value + `}`)
		})
	}
}

// A solution's answer that holds a marker and an Accepted payload, printed
// by the evaluator, is output, never the verdict: the SDK's result is
// signed with the run's nonce, and a raw evaluator's own result, printed
// last, wins over one printed before it.
func TestPrintedAnswerCannotForgeTheVerdict(t *testing.T) {
	for _, c := range []struct {
		eval string
		want Status
		msg  string
	}{
		{"print-answer-sdk", WrongAnswer, "wrong"},
		{"print-answer-raw", WrongAnswer, "wrong"},
		{"print-answer-exit-1", SystemError, "evaluator result discarded: the evaluator ended with exit status 1"},
		{"print-answer-hang", SystemError, "evaluator result discarded: the evaluator did not exit"},
	} {
		t.Run(c.eval, func(t *testing.T) {
			r := judgeCase{eval: c.eval, sol: "forge-verdict", evalRC: map[string]any{"time_limit_ms": 10000}}.run(t)
			wantStatus(t, r, c.want)
			if msg, _ := details(t, r)["message"].(string); !strings.HasPrefix(msg, c.msg) {
				t.Errorf("message %q, want it to start with %q", msg, c.msg)
			}
			if !strings.HasPrefix(r.Output, "got x\n") {
				t.Errorf("output %q, want what the evaluator printed", r.Output)
			}
		})
	}
}

// The same attack on Python evaluators: Neuro OJ's SDK (noj_evaluator_sdk,
// whose result is signed) and one that prints the marker itself.
func TestPrintedAnswerCannotForgePythonVerdict(t *testing.T) {
	testenv.Python3(t)
	sol := "def answer():\n    return " + fmt.Sprintf("%q", forgedVerdict) + "\n"
	for name, evaluate := range map[string]string{
		"noj-sdk": `from noj_evaluator_sdk import SolutionRunner, result
got = SolutionRunner().call("answer")
print("got", got)
result.wrong_answer(message="wrong")
`,
		"raw-marker": `import json
from noj_evaluator_sdk import SolutionRunner
got = SolutionRunner().call("answer")
print("got", got)
print("---RESULT---")
print(json.dumps({"status": "WrongAnswer", "score": 0, "details": {"message": "wrong"}}))
`,
	} {
		t.Run(name, func(t *testing.T) {
			r := judgeFiles(t, t.TempDir(), map[string]string{
				"problem.json": `{"format_version":1,"title":"forge"}`,
				"evaluate.py":  evaluate,
				"sol.py":       sol,
			}, &Options{Runner: sandbox.NewPlain()})
			wantStatus(t, r, WrongAnswer)
			if details(t, r)["message"] != "wrong" || r.Score != 0 {
				t.Fatalf("score %d details %s", r.Score, r.Details)
			}
		})
	}
}

// An answer the codec refuses for its size resolves the Python evaluator's
// call at once with RejectedError: the run ends with the evaluator's own
// verdict on it, long before its time limit (it used to hang to
// TimeLimitExceeded).
func TestOversizedAnswerRejectedAtOnce(t *testing.T) {
	testenv.Python3(t)
	exe := selfPath(t)
	for fn, reason := range map[string]string{"deep": "nesting too deep", "long": "digits"} {
		t.Run(fn, func(t *testing.T) {
			dir := t.TempDir()
			pj, _ := json.Marshal(map[string]any{"format_version": 1, "title": "big", "runtime_config": map[string]any{
				"evaluator": map[string]any{"time_limit_ms": 20000},
				"solution":  map[string]any{"command": []string{exe, "tether-side", "solution"}, "call_timeout_ms": 20000},
			}})
			files := map[string]string{"problem.json": string(pj), "evaluate.py": `from noj_evaluator_sdk import SolutionRunner, RejectedError, result
try:
    SolutionRunner().call("` + fn + `")
    result.accept()
except RejectedError as e:
    result.wrong_answer(message="rejected: %s" % e)
`}
			testfiles.Write(t, dir, files)
			p, err := LoadProblem(dir, []string{"python3", exe})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			r, err := Run(context.Background(), p, &Submission{Path: "main.py", Code: []byte("# raw solution\n")},
				&Options{Runner: sandbox.NewPlain(), Env: []string{"TETHER_TEST_SOL=oversized-answer"}})
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			wantStatus(t, r, WrongAnswer)
			if msg, _ := details(t, r)["message"].(string); !strings.HasPrefix(msg, "rejected: ") || !strings.Contains(msg, reason) {
				t.Fatalf("message %q, want the rejected answer's reason (%s)", msg, reason)
			}
			if took > 10*time.Second {
				t.Fatalf("the run took %v: the rejected answer waited for a limit", took)
			}
		})
	}
}

// lateExitRunner reports every process's exit late, as the rootless
// sandbox can on a loaded machine (its monitor learns of the exit first).
type lateExitRunner struct {
	sandbox.Runner
	late time.Duration
}

func (r lateExitRunner) Start(ctx context.Context, spec sandbox.Spec) (sandbox.Process, error) {
	p, err := r.Runner.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	return lateExitProcess{p, r.late}, nil
}

type lateExitProcess struct {
	sandbox.Process
	late time.Duration
}

func (p lateExitProcess) Wait() (sandbox.Usage, error) {
	u, err := p.Process.Wait()
	time.Sleep(p.late) // the behaviour under test: an exit reported late
	return u, err
}

// A result printed by hand counts when the evaluator exits with status 0,
// however late the sandbox reports that exit: on a loaded machine the
// rootless sandbox's report came after StopGrace and a good run was
// SystemError "the evaluator did not exit" (examples/noj in C++, CI).
func TestPlainResultKeptWhenTheExitIsReportedLate(t *testing.T) {
	opts := Options{Runner: lateExitRunner{sandbox.NewPlain(), time.Second}}
	r := judgeCase{eval: "print-answer-raw", sol: "forge-verdict", evalRC: map[string]any{"time_limit_ms": 10000}, opts: opts}.run(t)
	wantStatus(t, r, WrongAnswer)
	if msg, _ := details(t, r)["message"].(string); msg != "wrong" {
		t.Errorf("message %q, want the evaluator's own", msg)
	}
}
