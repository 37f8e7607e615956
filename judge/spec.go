package judge

import (
	"os"
	"time"

	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sandbox"
	"github.com/tether-dev/tether/sig"
)

// SolutionFileName is where the submitted file is placed in the solution's
// private work dir for a problem's own solution.command (a submission in
// a language is placed as its language's source file, package lang).
const SolutionFileName = "main.py"

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
	env := baseEnv(pythonPath, extra)
	if p.Functions != nil {
		// The evaluator SDKs check calls against the declaration
		// (docs/protocol/judge.md, "Declared functions").
		env = append(env, sig.EnvName+"="+p.Functions.Env())
	}
	spec := sandbox.Spec{
		Args:    rc.Command,
		Env:     env,
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

// solutionSpec runs build's command in the private work dir holding its
// files (package lang: the source, or what compiling it made). With a
// custom solution.command, the submission is main.py and
// TETHER_SOLUTION_ENTRY names it (relative to the working directory).
func solutionSpec(p *Problem, build *lang.Build, pythonPath string, extra []string) sandbox.Spec {
	rc := p.Runtime.Solution
	env := baseEnv(pythonPath, extra)
	if rc.Command != nil {
		env = append(env, "TETHER_SOLUTION_ENTRY="+SolutionFileName)
	} else if e := lang.ToolEnv(build.Run); e != "" {
		env = append(env, e)
	}
	spec := sandbox.Spec{
		Args:   build.Run,
		Env:    env,
		Files:  build.Files,
		Limits: sandboxLimits(rc.MemoryLimitMB, rc.Processes, time.Duration(rc.CPUTimeLimitMs)*time.Millisecond),
	}
	if pythonPath != "" {
		spec.Binds = append(spec.Binds, sandbox.Bind{Path: pythonPath})
	}
	spec.Binds = append(spec.Binds, build.Binds...)
	return spec
}
