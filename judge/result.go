package judge

import (
	"encoding/json"

	"github.com/tether-dev/tether/lang"
)

// Result is the judge's answer for one run, and the CLI's --json output.
type Result struct {
	SubmissionID string          `json:"submission_id"`
	Status       Status          `json:"status"`
	Score        int64           `json:"score"`
	Output       string          `json:"output"`
	Details      json.RawMessage `json:"details"`
	TimeMs       int64           `json:"time_ms"`
	MemoryKB     int64           `json:"memory_kb"`
	RejudgeSeq   int64           `json:"rejudge_seq"`
	CPUMs        int64           `json:"cpu_ms"`
	Calls        CallStats       `json:"calls"`
	Logs         Logs            `json:"logs"`
	Sandbox      string          `json:"sandbox"`
	// Dropped counts the lines and frames the relay dropped, by reason
	// (docs/protocol/judge.md: unknown, late or forged ids and frames a side may not send
	// are dropped with a warning): "unknown-id", "type", "solution-text", …
	// Absent when nothing was dropped; log frames over budget are in
	// Logs.Dropped instead.
	Dropped map[string]int `json:"dropped,omitempty"`
	// Exit is how each side's process ended (docs/sandbox.md's "exit status or
	// signal of each side").
	Exit Exits `json:"exit"`
	// LMUsage is what the run's LM handler served, per model (docs/protocol/lm.md's usage
	// summary); absent when the run had no handler.
	LMUsage json.RawMessage `json:"lm_usage,omitempty"`
	// Language is the submission's language id (package lang); absent for
	// a problem's own solution.command.
	Language string `json:"language,omitempty"`
	// Compile is the compile step, on no clock of the run: absent for a
	// language without one.
	Compile *lang.Stats `json:"compile,omitempty"`
}

// CallStats counts the calls of a run.
type CallStats struct {
	Count    int `json:"count"`    // call frames forwarded to the solution
	Timeouts int `json:"timeouts"` // CallTimeout errors sent to the evaluator
	Restarts int `json:"restarts"` // solution sandboxes restarted
	// CapabilityTimeouts counts the CallTimeout errors sent to the
	// solution: capabilities the evaluator did not answer in time.
	CapabilityTimeouts int `json:"capability_timeouts"`
}

// Exits says how the process of each side ended; a side that never
// started is null.
type Exits struct {
	Evaluator *ProcessExit `json:"evaluator"`
	// Solution is the last solution process: after restarts, the one that
	// ran last (the ones before it were killed by the judge).
	Solution *ProcessExit `json:"solution"`
}

// ProcessExit is how one process ended: ExitCode when it exited, Signal
// when a signal ended it, Error when the sandbox could not tell.
type ProcessExit struct {
	ExitCode *int   `json:"exit_code,omitempty"`
	Signal   string `json:"signal,omitempty"` // e.g. "SIGKILL", "SIGSEGV"
	// KilledByJudge: the signal came from the judge, at the end of the run,
	// on a restart or a timeout, or from a limit the sandbox enforces (CPU
	// time, memory). False for a process that exited or died on its own.
	KilledByJudge bool   `json:"killed_by_judge"`
	Error         string `json:"error,omitempty"`
	// Stderr is the end of what the solution process wrote to its stderr:
	// its last lines, at most MaxStderrTail bytes, starting on a line when
	// there is room for one and always on a character. It says why a
	// solution that did not start failed ("solution host did not start"
	// with exit 127 names no cause by itself). Absent when it wrote
	// nothing there, and for the evaluator, whose stderr ends Output.
	Stderr string `json:"stderr,omitempty"`
}

// Logs are the solution's log frames kept for the result: each whole frame
// counts against 64 KiB and 1024 frames per call in flight and 1 MiB and
// 16384 frames per run, and the kept entries against MaxResultLogBytes as
// encoded in the result.
type Logs struct {
	Kept []LogEntry `json:"kept"`
	// Dropped counts the log frames over any of those budgets (not
	// forwarded to the evaluator, or not kept in the result).
	Dropped int `json:"dropped"`
}

// LogEntry is one kept log frame.
type LogEntry struct {
	// Stream is "stdout", "stderr", or "other" for any other name (or none).
	Stream string `json:"stream"`
	Data   string `json:"data"`
}

// StderrSeparator joins evaluator stdout and stderr in Result.Output.
const StderrSeparator = "\n--- STDERR ---\n"

func joinOutput(stdout, stderr string) string {
	if stderr == "" {
		return stdout
	}
	return stdout + StderrSeparator + stderr
}

// messageDetails is the details object of a verdict the judge decided.
// compileErrorDetails are a CompileError's details: why, and the
// compiler's messages (also the result's output).
func compileErrorDetails(msg, compiler string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"message": msg, "compiler_output": compiler})
	return b
}

func messageDetails(msg string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"message": msg})
	return b
}
