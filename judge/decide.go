package judge

// Outcome is what the judge observed in one run, the input of Decide.
// Zero fields mean "did not happen".
type Outcome struct {
	Failure      string // an internal failure of the judge (panic, start error, ...)
	CompileError string // the submission did not compile, or its language is refused: why
	// SolutionNotReadyWhy, with SolutionNotReady, says how a submission's
	// own program (not a problem's solution.command) failed to get ready:
	// how it ended and its stderr's last lines; SolutionReadyTimedOut
	// when it was still running at the ready timeout.
	SolutionNotReadyWhy     string
	SolutionReadyTimedOut   bool
	EvaluatorMemoryExceeded bool // the evaluator sandbox hit its memory limit
	EvaluatorStartTimeout   bool // no evaluator output within the start phase
	EvaluatorSilentExit     bool // the evaluator ended before any output
	SolutionNotReady        bool // the solution did not send ready in time
	TimeLimitExceeded       bool // the evaluator overran time_limit_ms
	// CallInFlightAtTimeLimit: when it did, a call to the solution was in
	// flight (the evaluator was waiting on the solution).
	CallInFlightAtTimeLimit bool
	MemoryLimitExceeded     bool // the solution sandbox hit its memory limit
	SolutionCPUExceeded     bool // the solution used up its whole-run CPU time
	Payload                 *Payload
	PayloadErr              error // the line after the marker did not parse
	CallTimeouts            int   // CallTimeout errors sent to the evaluator
	// ResultDiscarded says why a plain-marker result was not taken (the
	// evaluator did not exit cleanly after it).
	ResultDiscarded string
}

// Verdict is the decision of Decide.
type Verdict struct {
	Status  Status
	Score   int64
	Message string // why the judge decided, "" when the evaluator's result stands
}

// Decide maps an Outcome to a verdict. It is pure. The first rule that
// applies wins:
//
//  0. the submission did not compile                  → CompileError
//  1. an internal failure of the judge                → SystemError
//  2. the evaluator hit its memory limit              → SystemError ("evaluator memory limit exceeded")
//  3. the evaluator produced no output in time        → SystemError ("evaluator start timeout")
//  4. the evaluator ended without any output          → SystemError
//  5. the solution never became ready: over its memory limit → MemoryLimitExceeded,
//     over its CPU time or past the ready timeout → TimeLimitExceeded, ended
//     by itself → RuntimeError (naming its exit and stderr); a problem's
//     own solution.command that never got ready → SystemError ("solution host did not start")
//  6. the evaluator overran its time limit while a call to the solution
//     was in flight                                   → TimeLimitExceeded
//  7. the solution hit its memory limit               → MemoryLimitExceeded
//  8. the solution used up its whole-run CPU time     → TimeLimitExceeded;
//     else the evaluator overran its time limit with no call in flight
//     → SystemError ("evaluator exceeded its own time limit": the time was
//     the evaluator's own, not the solution's)
//  9. the result payload did not parse                → SystemError
//  10. the evaluator's result                         → its status and score, as given
//  11. no result, and a CallTimeout was sent to it    → TimeLimitExceeded
//  12. no result otherwise                            → SystemError (saying why
//     a plain-marker result was discarded, if one was)
//
// So the evaluator's own status wins unless the judge saw a limit break or
// a failure. An evaluator over its memory limit means the problem is
// broken, not the submission (docs/sandbox.md), so it outranks everything the
// solution did: whatever the evaluator decided or failed to decide after
// the OOM kill cannot be trusted. Every verdict the judge decides itself
// has score 0.
func Decide(o Outcome) Verdict {
	switch {
	case o.CompileError != "" && o.Failure == "":
		return Verdict{Status: CompileError, Message: o.CompileError}
	case o.Failure != "":
		return Verdict{Status: SystemError, Message: o.Failure}
	case o.EvaluatorMemoryExceeded:
		return Verdict{Status: SystemError, Message: "evaluator memory limit exceeded"}
	case o.EvaluatorStartTimeout:
		return Verdict{Status: SystemError, Message: "evaluator start timeout"}
	case o.EvaluatorSilentExit:
		return Verdict{Status: SystemError, Message: "evaluator exited without output"}
	case o.SolutionNotReady && o.SolutionNotReadyWhy != "":
		switch {
		case o.MemoryLimitExceeded:
			return Verdict{Status: MemoryLimitExceeded, Message: "solution memory limit exceeded before it was ready"}
		case o.SolutionCPUExceeded:
			return Verdict{Status: TimeLimitExceeded, Message: "solution CPU time limit exceeded before it was ready"}
		case o.SolutionReadyTimedOut:
			return Verdict{Status: TimeLimitExceeded, Message: o.SolutionNotReadyWhy}
		}
		return Verdict{Status: RuntimeError, Message: o.SolutionNotReadyWhy}
	case o.SolutionNotReady:
		return Verdict{Status: SystemError, Message: "solution host did not start"}
	case o.TimeLimitExceeded && o.CallInFlightAtTimeLimit:
		return Verdict{Status: TimeLimitExceeded, Message: "evaluator time limit exceeded while a call to the solution was in flight"}
	case o.MemoryLimitExceeded:
		return Verdict{Status: MemoryLimitExceeded, Message: "solution memory limit exceeded"}
	case o.SolutionCPUExceeded:
		return Verdict{Status: TimeLimitExceeded, Message: "solution CPU time limit exceeded"}
	case o.TimeLimitExceeded:
		return Verdict{Status: SystemError, Message: "evaluator exceeded its own time limit (no call to the solution was in flight)"}
	case o.PayloadErr != nil:
		return Verdict{Status: SystemError, Message: o.PayloadErr.Error()}
	case o.Payload != nil:
		return Verdict{Status: o.Payload.Status, Score: o.Payload.Score}
	case o.CallTimeouts > 0:
		return Verdict{Status: TimeLimitExceeded, Message: "evaluator ended without a result after a call timeout"}
	case o.ResultDiscarded != "":
		return Verdict{Status: SystemError, Message: o.ResultDiscarded}
	default:
		return Verdict{Status: SystemError, Message: "evaluator ended without a result"}
	}
}
