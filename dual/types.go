package dual

import (
	"errors"
	"time"
)

// Side names one of the two processes of a run.
type Side uint8

const (
	Evaluator Side = iota // the trusted evaluator
	Solution              // the untrusted solution host
)

// String is "evaluator" or "solution".
func (s Side) String() string { return nameOf([]string{"evaluator", "solution"}, s, "side(?)") }

// nameOf is names[v], or unknown when v is past the names.
func nameOf[T ~uint8](names []string, v T, unknown string) string {
	if int(v) < len(names) {
		return names[v]
	}
	return unknown
}

// Other returns the opposite side.
func (s Side) Other() Side { return 1 - s }

// Policy is what the engine does after a call's CallTimeout.
type Policy uint8

const (
	// Restart (the default) kills the solution, starts a fresh one, waits for
	// its ready and fails every other call in flight to the old one.
	Restart Policy = iota
	// Continue keeps the Neuro OJ behaviour: nothing is restarted.
	Continue
)

// String is "restart" or "continue".
func (p Policy) String() string { return nameOf([]string{"restart", "continue"}, p, "restart") }

// Defaults of Config; a zero field means its default.
const (
	defaultCallTimeout         = 5 * time.Second
	defaultReadyTimeout        = 10 * time.Second
	defaultMaxFrame            = 1 << 20  // 1,048,576 bytes
	defaultMaxLogPerCall       = 64 << 10 // bytes of log frames (whole lines) kept per call
	defaultMaxLogPerRun        = 1 << 20  // bytes of log frames (whole lines) kept per run
	defaultMaxLogFramesPerCall = 1024     // log frames kept per call
	DefaultMaxLogFramesPerRun  = 16384    // log frames kept per run
	defaultMaxInFlight         = 4096     // entries per direction
	defaultMaxIDLen            = 1024     // bytes of a call or capability id
	defaultMaxQueuedBytes      = 8 << 20  // call frames held while the solution (re)starts
	maxTimeout                 = 100 * 365 * 24 * time.Hour
)

// Config sets the engine's limits. The zero value means every default.
type Config struct {
	CallTimeout         time.Duration // problem default deadline of a call or capability
	OnCallTimeout       Policy        // what a call's CallTimeout does to the solution (Restart unless set)
	ReadyTimeout        time.Duration // how long a started solution has to send ready
	MaxFrame            int           // bigger call/capability/response frames are Rejected
	MaxLogPerCall       int           // bytes of whole log frames kept and forwarded per call in flight
	MaxLogPerRun        int           // bytes of whole log frames kept and forwarded per run
	MaxLogFramesPerCall int           // log frames kept per call in flight
	MaxLogFramesPerRun  int           // log frames kept per run
	MaxInFlight         int           // per direction; a call or capability beyond it is Rejected
	MaxIDLen            int           // a longer call or capability id is Rejected
	MaxQueuedBytes      int           // bytes of call frames queued while no solution is ready; beyond, SystemError
	// ReportCalls adds a CallOpened and a CallClosed action for each call
	// and capability (for an observer: a trace, a timeline). Off, the
	// engine does not keep the names and times they need.
	ReportCalls bool
	// ResultNonce, if set, signs the evaluator's marker: the line
	// codec.SignedResultMarker(ResultNonce) is a marker whose payload ends
	// the run at once. Plain ---RESULT--- markers still count, the last one
	// when the evaluator is gone (see Result).
	ResultNonce string
}

func (c Config) withDefaults() Config {
	setDefault(&c.CallTimeout, defaultCallTimeout)
	setDefault(&c.ReadyTimeout, defaultReadyTimeout)
	setDefault(&c.MaxFrame, defaultMaxFrame)
	setDefault(&c.MaxLogPerCall, defaultMaxLogPerCall)
	setDefault(&c.MaxLogPerRun, defaultMaxLogPerRun)
	setDefault(&c.MaxLogFramesPerCall, defaultMaxLogFramesPerCall)
	setDefault(&c.MaxLogFramesPerRun, DefaultMaxLogFramesPerRun)
	setDefault(&c.MaxInFlight, defaultMaxInFlight)
	setDefault(&c.MaxIDLen, defaultMaxIDLen)
	setDefault(&c.MaxQueuedBytes, defaultMaxQueuedBytes)
	return c
}

// setDefault sets *v to d unless *v is positive.
func setDefault[T int | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// ActionKind says what the caller of the engine must do with an Action.
type actionKind uint8

const (
	// Send: write Frame (one line, no newline) to side To's stdin.
	actSend actionKind = iota + 1
	// Output: Text is a line of the evaluator's plain-text output, as
	// printed (leading and trailing white space kept; no line end).
	actOutput
	// Result: Text is the payload line that followed the marker. At most
	// once per run: at once after the signed marker (Config.ResultNonce);
	// after a plain ---RESULT---, only when the evaluator is gone and that
	// marker and payload were the last it printed (Plain).
	actResult
	// Log: a solution log frame that was kept; Stream is StreamStdout,
	// StreamStderr or StreamOther (any other name), Text its decoded data.
	actLog
	// RestartSolution: kill the solution, start a fresh one, then call
	// Engine.SolutionStarted.
	actRestartSolution
	// SolutionReady: the solution sent ready (First says whether it is the
	// first ready of the run).
	actSolutionReady
	// Warn: something was dropped; Reason says why, From where it came from.
	actWarn
	// Fatal: the run cannot go on; Err says why (errors.Is ErrSolutionNotReady).
	actFatal
	// CallOpened (Config.ReportCalls): a call (From Evaluator) or a
	// capability (From Solution) entered the in-flight table. ID is its
	// decoded id, Name its fn or capability name (nil if absent).
	actCallOpened
	// CallClosed (Config.ReportCalls): a call or capability left the table,
	// or was refused at the door (End EndRefused, with no CallOpened
	// before it). From, ID and Name as for CallOpened; Took is the time
	// from its arrival.
	actCallClosed
	// ResultLine: Text is a line the evaluator printed that belongs to a
	// result, not to its output: a marker (the signed one told as the plain
	// codec.ResultMarker, never with the nonce), the payload line after it
	// (whether or not it becomes the Result), or a blank line between them.
	// Neuro OJ's judge keeps these in its output; tether's output leaves
	// them out.
	actResultLine
)

var actionNames = [...]string{"?", "send", "output", "result", "log", "restart-solution", "solution-ready", "warn", "fatal",
	"call-opened", "call-closed", "result-line"}

func (k actionKind) String() string { return nameOf(actionNames[:], k, "?") }

// Action is one thing the engine asks its caller to do.
//
// Frame, Text, Name and ID may alias the line passed to the engine or the engine's own
// scratch buffers: they are valid until the next call of any Engine method
// or the next read into the line's buffer, whichever comes first. Copy them
// to keep them.
type action struct {
	Kind   actionKind
	To     Side // Send
	From   Side // Warn, Log
	Frame  []byte
	Text   []byte // Output, Result: the line; Log: the decoded data
	Name   []byte // CallOpened, CallClosed: the decoded fn or capability name
	Stream string
	Reason DropReason // Warn
	First  bool       // SolutionReady
	End    CallEnd    // CallClosed
	Err    error      // Fatal
	ID     []byte     // CallOpened, CallClosed
	Took   time.Duration
	// Unasked (Send to the evaluator): a frame the solution sent on its
	// own (capability, log, shutdown), not an answer the evaluator waits
	// for. An evaluator slow to read those is held up by the solution, so
	// its stalled stdin is not its end (see the package doc's Relay).
	Unasked bool
	// Plain (Result): the payload followed a plain ---RESULT---, not the
	// signed marker: it is the evaluator's only if it exited cleanly.
	Plain bool
}

// Outcome is how a call or capability ended (CallClosed).
type CallEnd uint8

const (
	EndResult    CallEnd = iota // the side that owed it answered with a result
	EndError                    // the side that owed it answered with an error frame
	EndTimeout                  // its deadline passed: CallTimeout
	EndRejected                 // its answer was over MaxFrame: Rejected
	EndFailed                   // the solution restarted, was gone or never started, or the evaluator was gone: SystemError
	EndAbandoned                // a capability of a solution that was restarted: nobody waits for it any more
	EndRefused                  // answered at the door (duplicate id, too many in flight, too big, solution gone); never opened
	numCallEnds
)

var callEndNames = [...]string{"result", "error", "timeout", "rejected", "failed", "abandoned", "refused"}

// String is the end as a trace records it (result, error, timeout, ...).
func (o CallEnd) String() string { return nameOf(callEndNames[:], o, "?") }

// DropReason says why the engine dropped a line or frame.
type DropReason uint8

const (
	DropNone          DropReason = iota // not dropped
	DropBeforeReady                     // a solution frame before its ready
	DropType                            // a frame type this side may not send
	DropNoID                            // a call, capability or response without a non-empty string id
	DropUnknownID                       // a response for an id not in flight (late, duplicate, forged)
	DropWrongSide                       // a response from the side that is owed it, not the one that owes it
	DropOldSolution                     // a frame from a solution that is gone or being replaced
	DropSolutionText                    // plain text on the solution's stdout
	DropEvaluatorLog                    // a log frame from the evaluator (never forwarded)
	DropLogBudget                       // a solution log frame over the per-call or per-run budget
	DropMalformed                       // a frame of a known type missing a field routing needs
	DropOversize                        // a frame over MaxFrame that could not be answered with Rejected
	DropLineTooLong                     // a line over the wire cap with no recognisable type and id
	DropEvaluatorGone                   // a frame for or from an evaluator that is gone
	DropRepeated                        // a solution's shutdown after its first: the evaluator heard it
	numDropReasons
)

var dropNames = [...]string{"none", "before-ready", "type", "no-id", "unknown-id", "wrong-side",
	"old-solution", "solution-text", "evaluator-log", "log-budget", "malformed", "oversize",
	"line-too-long", "evaluator-gone", "repeated"}

// String is the reason as a trace records it (before-ready, type, ...).
func (r DropReason) String() string { return nameOf(dropNames[:], r, "?") }

// Stats counts what an engine saw. It is a value; copies do not change.
type Stats struct {
	Calls              int64                 // call frames accepted from the evaluator
	Capabilities       int64                 // capability frames accepted from the solution
	Completed          int64                 // calls answered by the solution (result or error)
	CallTimeouts       int64                 // CallTimeout errors sent to the evaluator
	CapabilityTimeouts int64                 // CallTimeout errors sent to the solution
	Rejected           int64                 // Rejected errors written by the engine
	Restarts           int64                 // RestartSolution actions
	LogKeptFrames      int64                 // solution log frames kept and forwarded
	LogKeptBytes       int64                 // bytes of the log frames kept (whole lines)
	LogDroppedFrames   int64                 // solution log frames dropped over budget
	LogDroppedBytes    int64                 // bytes of the log frames dropped over budget (whole lines)
	Dropped            [numDropReasons]int64 // by DropReason
}

// ErrSolutionNotReady ends a run whose solution did not send ready within
// the ready timeout, or exited before sending it. The judge maps it to
// SystemError "solution host did not start".
var ErrSolutionNotReady = errors.New("dual: solution host did not start")
