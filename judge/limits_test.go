package judge

import (
	"errors"
	"testing"
	"time"

	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sandbox"
)

func TestDecideMessagesOfLimits(t *testing.T) {
	if v := Decide(Outcome{EvaluatorMemoryExceeded: true}); v.Message != "evaluator memory limit exceeded" {
		t.Errorf("evaluator MLE: %+v", v)
	}
	if v := Decide(Outcome{SolutionCPUExceeded: true}); v.Message != "solution CPU time limit exceeded" {
		t.Errorf("solution CPU: %+v", v)
	}
}

func TestLoadProblemProcessLimits(t *testing.T) {
	dir := writeProblem(t, `{"runtime_config":{"evaluator":{"time_limit_ms":4000}}}`, "evaluate.py")
	p, err := LoadProblem(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	def := ProcessLimits{Pids: DefaultPidsLimit, FileSizeMB: DefaultFileSizeLimitMB, OpenFiles: DefaultOpenFilesLimit}
	if p.Runtime.Evaluator.Processes != def || p.Runtime.Solution.Processes != def {
		t.Errorf("defaults: %+v %+v", p.Runtime.Evaluator.Processes, p.Runtime.Solution.Processes)
	}
	if got := p.Runtime.Solution.CPUTimeLimitMs; got != 4000+DefaultSolutionCPUAllowanceMs {
		t.Errorf("default cpu_time_limit_ms = %d, want time_limit_ms + allowance", got)
	}

	dir = writeProblem(t, `{"runtime_config":{
		"evaluator":{"pids_limit":8,"file_size_limit_mb":2,"open_files_limit":32,"some_future_limit":1},
		"solution":{"pids_limit":4,"file_size_limit_mb":1,"open_files_limit":16,"cpu_time_limit_ms":1500,"another":"x"}}}`, "evaluate.py")
	if p, err = LoadProblem(dir, nil); err != nil {
		t.Fatal(err)
	}
	if got := p.Runtime.Evaluator.Processes; got != (ProcessLimits{8, 2, 32}) {
		t.Errorf("evaluator limits %+v", got)
	}
	if got := p.Runtime.Solution.Processes; got != (ProcessLimits{4, 1, 16}) || p.Runtime.Solution.CPUTimeLimitMs != 1500 {
		t.Errorf("solution limits %+v, cpu %d", got, p.Runtime.Solution.CPUTimeLimitMs)
	}

	sol := solutionSpec(p, &lang.Build{Run: []string{"./main"}}, "", nil).Limits
	if want := (sandbox.Limits{Memory: DefaultMemoryLimitMB << 20, Pids: 4, CPUTime: 1500 * time.Millisecond, FileSize: 1 << 20, OpenFiles: 16}); sol != want {
		t.Errorf("solution sandbox limits %+v, want %+v", sol, want)
	}
	ev := evaluatorSpec(p, "", "", nil).Limits
	if want := (sandbox.Limits{Memory: DefaultMemoryLimitMB << 20, Pids: 8, FileSize: 2 << 20, OpenFiles: 32}); ev != want {
		t.Errorf("evaluator sandbox limits %+v, want %+v", ev, want)
	}

	for _, field := range []string{"pids_limit", "file_size_limit_mb", "open_files_limit", "cpu_time_limit_ms"} {
		dir := writeProblem(t, `{"runtime_config":{"solution":{"`+field+`":-1}}}`, "evaluate.py")
		var pe *ProblemError
		if _, err := LoadProblem(dir, nil); !errors.Is(err, ErrBadProblemJSON) || !errors.As(err, &pe) || pe.Field != "runtime_config.solution."+field {
			t.Errorf("%s -1: %v", field, err)
		}
	}
}

// The CPU cap is for the whole run: a restarted solution gets what the
// ones before it left, and none when they used it all.
func TestRestartSpecSharesTheCPUBudget(t *testing.T) {
	r := &run{solSpec: sandbox.Spec{Limits: sandbox.Limits{CPUTime: time.Second}}}
	r.solUsage = []sandbox.Usage{{CPU: 300 * time.Millisecond}, {CPU: 200 * time.Millisecond}}
	spec, err := r.restartSpec()
	if err != nil || spec.Limits.CPUTime != 500*time.Millisecond {
		t.Fatalf("left %v, %v", spec.Limits.CPUTime, err)
	}
	if r.solSpec.Limits.CPUTime != time.Second {
		t.Fatalf("the run's spec was changed: %v", r.solSpec.Limits.CPUTime)
	}
	r.solUsage = append(r.solUsage, sandbox.Usage{CPU: 500 * time.Millisecond})
	if _, err := r.restartSpec(); !errors.Is(err, errSolutionCPUSpent) {
		t.Fatalf("spent budget: %v", err)
	}
	r.solSpec.Limits.CPUTime = 0
	if _, err := r.restartSpec(); err != nil {
		t.Fatalf("no cap: %v", err)
	}
}
