package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"path"
	"strings"

	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sandbox"
)

// Packages fetches a task's support package into an empty folder
// (supportpkg.Cache). Its errors name the cause.
type Packages interface {
	Extract(ctx context.Context, downloadURL, destDir string) error
}

// RuntimePython is the one runtime tether has today: the host's python3
// with tether's Python SDK (Neuro OJ's SDK names included).
const RuntimePython = "python"

// DefaultRuntimes maps Neuro OJ's image names to tether runtimes. A
// solution image only has to be known: the task's language says how the
// solution is built and run (package lang).
var DefaultRuntimes = map[string]string{
	"noj-evaluator-python":    RuntimePython,
	"noj-solution-python":     RuntimePython,
	"noj-python-evaluator":    RuntimePython,
	"noj-python-solution":     RuntimePython,
	"python":                  RuntimePython,
	"noj-solution-cpp":        RuntimePython,
	"noj-solution-c":          RuntimePython,
	"noj-solution-javascript": RuntimePython,
	"noj-solution-node":       RuntimePython,
	"noj-cpp-solution":        RuntimePython,
	"noj-c-solution":          RuntimePython,
	"noj-javascript-solution": RuntimePython,
}

// Workspace is where a task's package is seen by its evaluator, as in
// Neuro OJ's containers.
const Workspace = "/workspace"

// Judger judges one task: it fetches the package, builds the problem from
// the task's runtime_config and runs package judge.
type Judger struct {
	Runner   sandbox.Runner
	Packages Packages          // nil: a task with a download_url is a SystemError
	Runtimes map[string]string // image name -> runtime; nil means DefaultRuntimes
	Allowed  []string          // evaluator command allow-list; nil means judge's default
	WorkDir  string            // parent of each task's package folder
	// Network lets an evaluator that asks for runtime_config.evaluator.network
	// have it (JUDGE_ALLOW_EVALUATOR_NETWORK); otherwise such a task is a
	// SystemError.
	Network bool
	// NetworkAllow is judge.Options.EvaluatorNetworkAllow
	// (JUDGE_EVALUATOR_NETWORK_ALLOW).
	NetworkAllow []netip.Prefix
	// Observe, when set, gets the judge's result of each run.
	Observe func(*judge.Result)
	// Metrics, when set, counts what happens in each run from its events:
	// calls and capabilities by outcome, dropped frames, process exits,
	// restarts, compile steps (the worker's Config.Metrics).
	Metrics *Metrics
	// Languages and BuildCache are the judge's (judge.Options): how a
	// task's language is built and run.
	Languages  *lang.Table
	BuildCache *lang.Cache
	// CPUMillicores caps each side's sandbox (judge.Options.CPUMillicores;
	// JUDGE_CPU_LIMIT_MILLICORES); 0: no cap.
	CPUMillicores int
	// ImagePrefix is JUDGE_IMAGE_PREFIX: Neuro OJ's judge puts it before
	// its image names, so an image named with it is the image without it.
	ImagePrefix string
}

// imageName strips a registry path and a tag: ghcr.io/neuro-oj/noj-evaluator-python:v1 -> noj-evaluator-python.
func imageName(image string) string {
	name := path.Base(image)
	if i := strings.IndexAny(name, ":@"); i >= 0 {
		name = name[:i]
	}
	return name
}

// runtime maps a task's image to a runtime: by its name as given, without
// ImagePrefix, without a registry path and tag, and else by the longest
// known name it ends with after a separator (acme-noj-evaluator-python is
// noj-evaluator-python), so an image named with any prefix maps.
func (j *Judger) runtime(side, image string) (string, error) {
	runtimes := j.Runtimes
	if runtimes == nil {
		runtimes = DefaultRuntimes
	}
	unprefixed := image
	if j.ImagePrefix != "" {
		unprefixed = strings.TrimPrefix(image, j.ImagePrefix)
	}
	for _, name := range []string{image, unprefixed, imageName(image), imageName(unprefixed)} {
		if rt, ok := runtimes[name]; ok {
			return rt, nil
		}
	}
	base, best := imageName(unprefixed), ""
	for known := range runtimes {
		if len(known) > len(best) && endsWithName(base, known) {
			best = known
		}
	}
	if best != "" {
		return runtimes[best], nil
	}
	return "", fmt.Errorf("runtime_config.%s.image %q is not a runtime this worker knows; map it with --runtime %s=python", side, image, imageName(image))
}

// endsWithName: name ends with known, right after a '-', '_', '.' or '/'.
func endsWithName(name, known string) bool {
	rest, ok := strings.CutSuffix(name, known)
	return ok && rest != "" && strings.ContainsRune("-_./", rune(rest[len(rest)-1]))
}

// Judge judges t with the slot's CPUs. The error is non-nil only when ctx
// ended the run: the task is then unfinished and goes back to the queue.
func (j *Judger) Judge(ctx context.Context, t *Task, cpus SlotCPUs) (*Result, error) {
	for _, s := range []struct{ side, image string }{{"evaluator", t.RuntimeConfig.Evaluator.Image}, {"solution", t.RuntimeConfig.Solution.Image}} {
		rt, err := j.runtime(s.side, s.image)
		if err != nil {
			return systemError(t, err.Error()), nil
		}
		if rt != RuntimePython {
			return systemError(t, fmt.Sprintf("runtime %q of image %q is not one tether has (only %q)", rt, s.image, RuntimePython)), nil
		}
	}
	td, err := makeTaskDir(j.WorkDir)
	if err != nil {
		return systemError(t, fmt.Sprintf("cannot make the task folder under WORK_DIR %s: %v", j.WorkDir, err)), nil
	}
	defer td.remove()
	dir := td.pkg
	if t.DownloadURL != "" {
		if j.Packages == nil {
			return systemError(t, "the task has a download_url but this worker has no package cache"), nil
		}
		if err := j.Packages.Extract(ctx, t.DownloadURL, dir); err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("judge: run cancelled while fetching the package: %w", ctx.Err())
			}
			return systemError(t, err.Error()), nil
		}
	}
	problemJSON, _ := json.Marshal(map[string]json.RawMessage{"runtime_config": t.RuntimeConfig.Raw})
	p, err := judge.ParseProblem(dir, "task", problemJSON, j.Allowed)
	if err != nil {
		return systemError(t, strings.TrimPrefix(err.Error(), "judge: ")), nil
	}
	if p.Functions == nil {
		// The package's problem.json declares the functions (the task
		// carries only runtime_config).
		if p.Functions, err = judge.LoadFunctions(dir); err != nil {
			return systemError(t, strings.TrimPrefix(err.Error(), "judge: ")), nil
		}
	}
	if p.Runtime.Evaluator.Network && !j.Network {
		return systemError(t, "runtime_config.evaluator.network.enabled is true but this worker does not allow evaluator network (JUDGE_ALLOW_EVALUATOR_NETWORK)"), nil
	}
	sub := &judge.Submission{Path: t.solutionName(), Code: []byte(t.Code), Language: t.Language}
	opts := &judge.Options{
		Runner: j.Runner, SubmissionID: t.SubmissionID, RejudgeSeq: t.Seq(),
		Languages: j.Languages, BuildCache: j.BuildCache,
		EvaluatorWorkspace: Workspace,
		EvaluatorCPUs:      cpus.Evaluator, SolutionCPUs: cpus.Solution,
		EvaluatorNetworkAllow: j.NetworkAllow,
		CPUMillicores:         j.CPUMillicores,
		NeuroOJ:               true, // the worker's results are Neuro OJ's (docs/worker.md)
	}
	if counts := j.Metrics.runObserver(); counts != nil {
		opts.Observer = counts
		defer counts.add() // a cancelled run's calls were made too
	}
	res, err := judge.Run(ctx, p, sub, opts)
	if err != nil {
		if errors.Is(err, judge.ErrCancelled) {
			return nil, err
		}
		return systemError(t, err.Error()), nil
	}
	if j.Observe != nil {
		j.Observe(res)
	}
	return fromJudge(t, res), nil
}

// fromJudge maps the judge's result to Neuro OJ's.
func fromJudge(t *Task, r *judge.Result) *Result {
	out := &Result{
		SubmissionID: t.SubmissionID,
		Status:       r.Status.String(),
		Score:        r.Score,
		Output:       tailUTF8(r.Output, MaxOutput),
		Details:      r.Details,
		TimeMs:       r.TimeMs,
		MemoryKB:     r.MemoryKB,
		RejudgeSeq:   t.RejudgeSeq,
	}
	if len(out.Details) == 0 {
		out.Details = json.RawMessage("null")
	}
	return out
}
