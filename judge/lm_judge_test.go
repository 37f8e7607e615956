package judge_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/judge/lmstart"
	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/sandbox"
	"github.com/tether-dev/tether/sandbox/sandboxtest"
)

// lmDetails is what testdata/lm/problem/evaluate.py reports.
type lmDetails struct {
	Addr         string  `json:"addr"`
	TCP          *bool   `json:"tcp"`
	Direct       string  `json:"direct"`
	ViaSolution  string  `json:"via_solution"`
	Refusal      *string `json:"refusal"`
	SolutionSees struct {
		Env    *string `json:"env"`
		Socket bool    `json:"socket"`
	} `json:"solution_sees"`
}

// judgeLMProblem runs testdata/lm/problem with the problem's own LM
// configuration (echo backend, budget of 2 calls) and a loopback TCP
// listener whose port the evaluator tries.
func judgeLMProblem(t *testing.T, runner sandbox.Runner) (*judge.Result, lmDetails) {
	t.Helper()
	testenv.Python3(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	p, sub := loadRun(t, "testdata/lm/problem", "testdata/lm/solution.py")
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	res, err := judge.Run(context.Background(), p, sub, &judge.Options{Runner: runner,
		LM: lmstart.Starter(nil, nil), Env: []string{"TETHER_TEST_TCP=" + port}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != judge.Accepted {
		t.Fatalf("status %v, details %s, output:\n%s", res.Status, res.Details, res.Output)
	}
	var d lmDetails
	if err := json.Unmarshal(res.Details, &d); err != nil {
		t.Fatalf("details %s: %v", res.Details, err)
	}
	return res, d
}

// checkLMRun checks what every runner must give: the evaluator reaches the
// handler by a Unix socket, the solution only through the capability, the
// budget refuses the third call with a clear message, lm_usage counts the
// two served calls, and the socket is gone afterwards.
func checkLMRun(t *testing.T, res *judge.Result, d lmDetails) {
	t.Helper()
	socket, ok := strings.CutPrefix(d.Addr, "unix:")
	if !ok {
		t.Fatalf("TETHER_LM_ADDR = %q, want unix:PATH", d.Addr)
	}
	if d.Direct != "one two three" || d.ViaSolution != "four five" {
		t.Errorf("echo answers %q and %q, want the prompts", d.Direct, d.ViaSolution)
	}
	if d.SolutionSees.Env != nil {
		t.Errorf("the solution's environment has TETHER_LM_ADDR=%q", *d.SolutionSees.Env)
	}
	if d.Refusal == nil || !strings.Contains(*d.Refusal, lm.ErrBudgetExhausted.Error()) || !strings.Contains(*d.Refusal, "2 of 2 calls") {
		t.Errorf("third call: evaluator saw %v, want the budget error", d.Refusal)
	}
	var usage lm.UsageSummary
	if err := json.Unmarshal(res.LMUsage, &usage); err != nil {
		t.Fatalf("lm_usage %s: %v", res.LMUsage, err)
	}
	// Echo counts words: 3 in and out for the first prompt, 2 for the second.
	if usage.Calls() != 2 || usage.Tokens() != 10 || usage.ModelUsageSummaries["echo"].TotalCalls != 2 {
		t.Errorf("lm_usage = %s, want 2 echo calls, 10 tokens", res.LMUsage)
	}
	if _, err := os.Stat(filepath.Dir(socket)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket dir %s still there after the run (%v)", filepath.Dir(socket), err)
	}
}

func TestLMHandlerPlainRunner(t *testing.T) {
	res, d := judgeLMProblem(t, sandbox.NewPlain())
	checkLMRun(t, res, d)
	// Without isolation the loopback listener is reachable: the probe works.
	if d.TCP == nil || !*d.TCP {
		t.Errorf("plain runner: evaluator could not reach the loopback TCP listener (tcp=%v)", d.TCP)
	}
}

// Under the linux sandbox the evaluator has no network at all, yet reaches
// the handler through the bound socket; the solution cannot even see it.
func TestLMHandlerLinuxSandboxNoNetwork(t *testing.T) {
	res, d := judgeLMProblem(t, sandboxtest.Linux(t))
	checkLMRun(t, res, d)
	if d.TCP == nil || *d.TCP {
		t.Errorf("linux sandbox: evaluator reached the host's loopback (tcp=%v), want no network", d.TCP)
	}
	if d.SolutionSees.Socket {
		t.Error("linux sandbox: the solution sees the LM socket")
	}
	if res.Sandbox != "linux" {
		t.Errorf("sandbox = %q", res.Sandbox)
	}
}
