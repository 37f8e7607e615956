package judge

import (
	"os"
	"time"

	"github.com/tether-dev/tether/sandbox"
)

// SolutionFileName is where the submitted file is placed in the solution's
// private work dir.
const SolutionFileName = "main.py"

// DefaultSolutionCommand starts the Python solution host.
var DefaultSolutionCommand = []string{"python3", "-m", "noj_solution_sdk.host", "--entry", SolutionFileName}

// baseEnv is the environment both sides start from: nothing of the judge's
// own environment leaks except PATH. The sandbox adds HOME and TMPDIR, both
// the side's private writable work dir.
func baseEnv(pythonPath string, extra []string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"LANG=C.UTF-8",
		"PYTHONUNBUFFERED=1",
		"PYTHONDONTWRITEBYTECODE=1",
	}
	if pythonPath != "" {
		env = append(env, "PYTHONPATH="+pythonPath)
	}
	return append(env, extra...)
}

// evaluatorSpec runs in the problem folder, seen at workspace inside the
// sandbox ("" means its own host path).
func evaluatorSpec(p *Problem, workspace, pythonPath string, extra []string) sandbox.Spec {
	rc := p.Runtime.Evaluator
	dir := p.Dir
	if workspace != "" {
		dir = workspace
	}
	spec := sandbox.Spec{
		Args:    rc.Command,
		Env:     baseEnv(pythonPath, extra),
		Dir:     dir,
		Binds:   []sandbox.Bind{{Path: p.Dir, Target: workspace}},
		Network: rc.Network,
		// The evaluator's wall limit is the relay's phase 2 timer; no CPU cap.
		Limits: sandboxLimits(rc.MemoryLimitMB, rc.Processes, 0),
	}
	if pythonPath != "" {
		spec.Binds = append(spec.Binds, sandbox.Bind{Path: pythonPath})
	}
	return spec
}

// solutionSpec runs in the private work dir holding main.py. With a custom
// solution.command, TETHER_SOLUTION_ENTRY names the file (relative to the
// working directory).
func solutionSpec(p *Problem, sub *Submission, pythonPath string, extra []string) sandbox.Spec {
	rc := p.Runtime.Solution
	args := DefaultSolutionCommand
	env := baseEnv(pythonPath, extra)
	if rc.Command != nil {
		args = rc.Command
		env = append(env, "TETHER_SOLUTION_ENTRY="+SolutionFileName)
	}
	spec := sandbox.Spec{
		Args:   args,
		Env:    env,
		Files:  []sandbox.File{{Name: SolutionFileName, Data: sub.Code}},
		Limits: sandboxLimits(rc.MemoryLimitMB, rc.Processes, time.Duration(rc.CPUTimeLimitMs)*time.Millisecond),
	}
	if pythonPath != "" {
		spec.Binds = append(spec.Binds, sandbox.Bind{Path: pythonPath})
	}
	return spec
}
