package judge

import (
	"encoding/json"
	"time"
)

// result assembles the Result after every side has stopped.
func (r *run) result() *Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, u := range r.solUsage {
		r.outcome.MemoryLimitExceeded = r.outcome.MemoryLimitExceeded || u.MemoryExceeded
		r.outcome.SolutionCPUExceeded = r.outcome.SolutionCPUExceeded || u.CPUExceeded
	}
	if r.evaluator != nil {
		r.outcome.EvaluatorMemoryExceeded = r.evaluator.usage.MemoryExceeded
	}
	if r.outcome.SolutionNotReady {
		r.outcome.SolutionNotReadyWhy, r.outcome.SolutionReadyTimedOut = r.notReadyWhy()
	}
	v := Decide(r.outcome)
	res := &Result{
		SubmissionID: r.opts.SubmissionID,
		RejudgeSeq:   r.opts.RejudgeSeq,
		Status:       v.Status,
		Score:        v.Score,
		Sandbox:      r.opts.Runner.Kind(),
		Calls: CallStats{Count: r.counts.calls, Timeouts: r.counts.timeouts, Restarts: r.counts.restarts,
			CapabilityTimeouts: r.counts.capTimeouts},
		Logs:     Logs{Kept: r.logs.kept, Dropped: r.counts.logsDropped},
		Dropped:  r.counts.dropped,
		Language: r.language,
		Compile:  r.compile,
	}
	if res.Logs.Kept == nil {
		res.Logs.Kept = []LogEntry{}
	}
	var stderr string
	if r.evaluator != nil {
		stderr = r.evaluator.stderrText()
	}
	res.Output = joinOutput(r.stdout.String(), stderr)
	if v.Status == CompileError && r.outcome.CompileError != "" {
		// The evaluator never ran: the output is the compiler's.
		res.Output = r.compilerOutput
	}
	res.LMUsage = r.lmUsage
	switch {
	case v.Status == CompileError && r.outcome.CompileError != "":
		res.Details = compileErrorDetails(v.Message, r.compilerOutput)
	case v.Message != "":
		res.Details = messageDetails(v.Message)
	case r.outcome.Payload != nil && r.outcome.Payload.Details != nil:
		res.Details = r.outcome.Payload.Details
	case !r.opts.NeuroOJ: // Neuro OJ's judge sends null
		res.Details = json.RawMessage("{}")
	}
	// time_ms is phase 2: from the evaluator's first output to the end.
	if !r.firstOutput.IsZero() && !r.endedAt.IsZero() {
		res.TimeMs = r.endedAt.Sub(r.firstOutput).Milliseconds()
	}
	// cpu_ms and memory_kb measure the solution (every process of it).
	var cpu time.Duration
	for _, u := range r.solUsage {
		cpu += u.CPU
		res.MemoryKB = max(res.MemoryKB, u.MemoryPeak/1024)
	}
	res.CPUMs = cpu.Milliseconds()
	// Both sides have stopped (stopAll, or restartSolution for a solution
	// whose successor did not start), so their usage is final.
	if r.evaluator != nil {
		res.Exit.Evaluator = r.evaluator.exit()
	}
	if r.lastSol != nil {
		res.Exit.Solution = r.lastSol.exit()
		res.Exit.Solution.Stderr = stderrTail(r.lastSol.stderrText())
	}
	return res
}
