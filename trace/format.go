package trace

import (
	"encoding/json"
	"time"

	"github.com/tether-dev/tether/internal/version"
	"github.com/tether-dev/tether/judge"
)

// Version is the format version this package writes. Readers accept every
// version up to it. Version 2 records a call or answer together with the
// frame that opened or answered it, where version 1 had a line event
// before it; version 3 leaves out of such a call or answer what its frame,
// when kept as written, already holds (len, id, a call's fn). The Reader
// gives every version as version 1 has it. The compile and start kinds and
// an exit's n came later within version 3: new kinds, which readers skip,
// need no new version (docs/trace.md, "Versioning").
const Version = 3

// DefaultMax is the default cap of a trace file (tether judge --trace-max).
const DefaultMax = 64 << 20

// Header is the first line of a trace.
type Header struct {
	Trace        int              `json:"trace"`  // the format version
	Tether       string           `json:"tether"` // the version of tether that wrote it
	Problem      string           `json:"problem"`
	SubmissionID string           `json:"submission_id"`
	Started      time.Time        `json:"started"` // event times are microseconds since this instant
	Sandbox      string           `json:"sandbox,omitempty"`
	Sides        map[string]Exec  `json:"sides"`
	Limits       map[string]int64 `json:"limits,omitempty"` // the problem's limits by their problem.json names
}

// Exec is how one side of the run is started (dual.Side names the side).
type Exec struct {
	Command []string `json:"command,omitempty"` // absent: the default (the solution's Python host)
	File    string   `json:"file,omitempty"`    // the submission file, for the solution
}

// HeaderFor is the header of a run of p; sandbox is the runner's Kind.
func HeaderFor(p *judge.Problem, sub *judge.Submission, submissionID, sandbox string) Header {
	ev, sol := p.Runtime.Evaluator, p.Runtime.Solution
	h := Header{Trace: Version, Tether: version.Version, Problem: p.Title, SubmissionID: submissionID,
		Started: time.Now(), Sandbox: sandbox,
		Sides: map[string]Exec{"evaluator": {Command: ev.Command}, "solution": {Command: sol.Command}},
		Limits: map[string]int64{"time_limit_ms": ev.TimeLimitMs, "call_timeout_ms": sol.CallTimeoutMs,
			"memory_limit_mb": sol.MemoryLimitMB, "cpu_time_limit_ms": sol.CPUTimeLimitMs}}
	if sub != nil {
		s := h.Sides["solution"]
		s.File = sub.Path
		h.Sides["solution"] = s
	}
	return h
}

// Event kinds: the "ev" member of each line after the header. A reader
// must skip kinds it does not know (later versions may add some).
const (
	KindLine    = "line"    // a line a side wrote, before routing
	KindCall    = "call"    // a call (side evaluator) or capability (side solution) opened
	KindAnswer  = "answer"  // it was answered or ended otherwise (outcome)
	KindDrop    = "drop"    // a line or frame was dropped (reason)
	KindRestart = "restart" // a fresh solution started
	KindExit    = "exit"    // a side's process ended
	KindLM      = "lm"      // the run's LM handler answered a prompt
	KindVerdict = "verdict" // the run's result
	KindEnd     = "end"     // the last line: counts, and whether the cap was reached
	KindCompile = "compile" // the submission's compile step ended (added within version 3)
	KindStart   = "start"   // a side's process started (added within version 3)
)

// Event is one line after the header. Which members are set depends on Ev.
type Event struct {
	T    int64  `json:"t"`  // microseconds since Header.Started
	Ev   string `json:"ev"` // one of the Kind constants
	Side string `json:"side,omitempty"`

	// line
	Kind  string          `json:"kind,omitempty"`  // "frame", "text" or "marker"
	Len   int64           `json:"len,omitempty"`   // the line's full length in bytes
	Frame json.RawMessage `json:"frame,omitempty"` // a frame, as written (big __bytes__ values summarised)
	Text  *string         `json:"text,omitempty"`  // a text line, or a frame that is not plain JSON
	Cut   bool            `json:"cut,omitempty"`   // only the line's head was kept

	// call, answer
	ID      string `json:"id,omitempty"`
	Fn      string `json:"fn,omitempty"`
	Outcome string `json:"outcome,omitempty"` // result, error, timeout, rejected, failed, abandoned, refused
	Us      int64  `json:"us,omitempty"`      // answer: microseconds since the call opened; compile: the step's wall time

	Reason  string             `json:"reason,omitempty"`  // drop
	N       int                `json:"n,omitempty"`       // restart: restarts so far; start, exit: the solution's process number
	Exit    *judge.ProcessExit `json:"exit,omitempty"`    // exit
	LM      *judge.LMRequest   `json:"lm,omitempty"`      // lm
	Result  *judge.Result      `json:"result,omitempty"`  // verdict
	Compile *judge.CompileStep `json:"compile,omitempty"` // compile

	// end
	Events          int64            `json:"events,omitempty"`     // events recorded, header and end excluded
	Bytes           int64            `json:"bytes,omitempty"`      // bytes written before the end line
	Capped          bool             `json:"capped,omitempty"`     // the cap was reached: what followed is only counted
	Max             int64            `json:"max,omitempty"`        // the cap
	Unrecorded      map[string]int64 `json:"unrecorded,omitempty"` // events left out, by kind
	UnrecordedBytes int64            `json:"unrecorded_bytes,omitempty"`
	JudgeCPUUs      int64            `json:"judge_cpu_us,omitempty"` // the judge process's CPU time while the trace was written
}
