package judge

import (
	"errors"
	"time"

	"github.com/tether-dev/tether/sandbox"
)

// Defaults of the per-side process limits of runtime_config (docs/problem.md).
// Each can be set per side in problem.json as pids_limit,
// file_size_limit_mb and open_files_limit; 0 or absent means the default.
const (
	DefaultPidsLimit       = 64 // processes and threads of one sandbox
	DefaultFileSizeLimitMB = 16 // largest file a side may write
	DefaultOpenFilesLimit  = 256
	// DefaultSolutionCPUAllowanceMs is added to evaluator.time_limit_ms to
	// get the solution's default whole-run CPU cap. The wall limit counts
	// only from the evaluator's first output, while the solution's CPU
	// clock starts with its host (the Python interpreter and imports), so
	// the cap is one CPU busy for the whole wall limit plus that start.
	// A solution that burns more (several busy threads or processes, or a
	// busy loop left running under on_call_timeout "continue") is killed
	// and judged TimeLimitExceeded.
	DefaultSolutionCPUAllowanceMs = 1000
)

// ProcessLimits are the limits of one side that the sandbox enforces with
// the pids cgroup and rlimits.
type ProcessLimits struct {
	Pids       int64 // processes and threads
	FileSizeMB int64
	OpenFiles  int64
}

// processLimitsFile mirrors the limit fields of one side in problem.json.
type processLimitsFile struct {
	PidsLimit       *int64 `json:"pids_limit"`
	FileSizeLimitMB *int64 `json:"file_size_limit_mb"`
	OpenFilesLimit  *int64 `json:"open_files_limit"`
}

func defaultSolutionCPUTimeMs(evaluatorTimeLimitMs int64) int64 {
	return evaluatorTimeLimitMs + DefaultSolutionCPUAllowanceMs
}

// sandboxLimits are the sandbox.Limits of one side.
func sandboxLimits(memoryMB int64, pl ProcessLimits, cpu time.Duration) sandbox.Limits {
	return sandbox.Limits{
		Memory:    memoryMB << 20,
		Pids:      int(pl.Pids),
		CPUTime:   cpu,
		FileSize:  pl.FileSizeMB << 20,
		OpenFiles: int(pl.OpenFiles),
	}
}

// errSolutionCPUSpent ends a restart: the solutions before it used up the
// whole run's CPU time.
var errSolutionCPUSpent = errors.New("judge: the solution's CPU time for the run is spent")

// restartSpec is the solution's spec for a restart: the CPU cap is for the
// whole run, so the new sandbox gets what its predecessors left.
func (r *run) restartSpec() (sandbox.Spec, error) {
	spec := r.solSpec
	if spec.Limits.CPUTime <= 0 {
		return spec, nil
	}
	r.mu.Lock()
	left := spec.Limits.CPUTime
	for _, u := range r.solUsage {
		left -= u.CPU
	}
	r.mu.Unlock()
	if left <= 0 {
		return spec, errSolutionCPUSpent
	}
	spec.Limits.CPUTime = left
	return spec, nil
}
