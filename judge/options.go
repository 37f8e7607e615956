package judge

import (
	"net/netip"
	"time"

	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sandbox"
)

// Defaults of Options.
const (
	DefaultStartTimeout = 30 * time.Second
	DefaultStopGrace    = 500 * time.Millisecond
)

// Options of a run. A zero field means the default; Runner is required.
type Options struct {
	// Runner starts both sides (sandbox.Select picks one for the machine;
	// sandbox.NewPlain() runs without isolation). Required: Run refuses a
	// nil Runner rather than run untrusted code unsandboxed by accident.
	Runner sandbox.Runner
	// SubmissionID and RejudgeSeq are copied into the Result.
	SubmissionID string
	RejudgeSeq   int64
	// StartTimeout is phase 1: how long the evaluator has for its first
	// output line (docs/protocol/judge.md: 30 s).
	StartTimeout time.Duration
	// StopGrace is how long a side gets to exit after its stdin is closed
	// before its sandbox is killed.
	StopGrace time.Duration
	// Env is added to both sides' environment (after PATH, LANG and
	// PYTHONPATH, which the judge sets; HOME and TMPDIR are the sandbox's
	// private work dir unless Env sets them).
	Env []string
	// PythonPath is a directory holding the Python SDK packages, put on
	// PYTHONPATH and bound read-only into both sandboxes. Empty: the judge
	// writes the embedded SDK (package sdk/python) to a temp dir for the run
	// and removes it at the end.
	PythonPath string
	// Observer is told what happens in the run, as it happens (Event);
	// nil: nobody is. Observers combines several.
	Observer Observer
	// EvaluatorCPUs and SolutionCPUs are the CPUs each side's sandbox may
	// run on (sandbox.Spec.CPUs); empty means any. A CPU this process may not
	// use ends the run as SystemError. Two different CPUs keep each side on
	// its own CPU while they call each other, instead of wherever the kernel
	// wakes them (see bench/RESULTS.md, "python sdk").
	EvaluatorCPUs, SolutionCPUs []int
	// EvaluatorWorkspace is where the problem folder appears inside the
	// evaluator's sandbox, and its working directory: Neuro OJ's workers
	// mount the problem package at "/workspace", and its evaluators are
	// started as "python3 /workspace/evaluate.py". Empty: the folder's own
	// host path. Under the none runner, paths under it in the command are
	// rewritten to the folder (sandbox.Bind.Target).
	EvaluatorWorkspace string
	// EvaluatorNetworkAllow are the addresses and CIDRs an evaluator with
	// the network (runtime_config.evaluator.network.enabled) may reach
	// although they lie in a range its sandbox refuses by default: a
	// private or local range (sandbox.Spec.NetworkAllow, docs/sandbox.md).
	EvaluatorNetworkAllow []netip.Prefix
	// LM starts a language-model handler for each run, reachable from the
	// evaluator only (see LMStarter). Nil: no handler, and a problem that
	// declares runtime_config.lm ends as SystemError (ErrNoLMHandler).
	LM LMStarter
	// Languages is the language table submissions are told and built by;
	// nil: lang.Builtin().
	Languages *lang.Table
	// BuildCache keeps compiled submissions between runs; nil: every
	// compiled submission is compiled again.
	BuildCache *lang.Cache
	// CPUMillicores caps each side's sandbox at this many thousandths of a
	// CPU (sandbox.Limits.CPUMillicores, a quota; the linux sandbox
	// enforces it); 0: no cap. The worker's JUDGE_CPU_LIMIT_MILLICORES.
	CPUMillicores int
	// NeuroOJ makes Output and Details what Neuro OJ's judge gives for the
	// same run (the worker's results, docs/worker.md): Output keeps the
	// result marker and payload lines where the evaluator printed them (a
	// signed marker as the plain ---RESULT---, never with its nonce), and
	// Details is nil, not {}, when neither the evaluator nor the judge gave
	// any.
	NeuroOJ bool
}

func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	if v.StartTimeout <= 0 {
		v.StartTimeout = DefaultStartTimeout
	}
	if v.StopGrace <= 0 {
		v.StopGrace = DefaultStopGrace
	}
	return v
}
