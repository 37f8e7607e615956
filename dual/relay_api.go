package dual

import (
	"context"
	"io"
	"time"
)

// Endpoint is one side's pipes as the relay sees them. The relay takes
// ownership: it closes Stdin when the side is gone or the run ends (stdin
// EOF tells a side to exit) and closes Stdout at the end of the run to stop
// its reader. Close must unblock a pending Write or Read, as it does for
// *os.File pipes and io.Pipe.
type Endpoint struct {
	Stdin  io.WriteCloser // what the relay writes the side's frames to
	Stdout io.ReadCloser  // what the relay reads the side's lines from
	// Exited, if not nil, delivers how the process ended ("exit status 1",
	// "signal: killed"), sent or closed once it has exited. When Stdout
	// reaches EOF the relay waits up to ExitGrace for it, so the SystemError
	// sent for the calls the side owed names the exit; without it the
	// reason is "stdout closed".
	Exited <-chan string
}

// RestartFunc kills the current solution and starts a fresh one, returning
// its pipes. The relay has already closed the old pipes when it calls it.
// ctx is cancelled when the run ends.
type RestartFunc func(ctx context.Context) (Endpoint, error)

// Hooks receive what a run produces. Each hook may be nil. Hooks are called
// one at a time (never concurrently), in the order things happened, from
// the relay's goroutines: FirstEvaluatorLine at once, with the relay's lock
// held; the others after the relay has forwarded the lines it routed with
// them, outside its lock, and all before Run returns. They must return
// quickly and must not call Relay methods. Byte slices are valid only
// during the call.
type Hooks struct {
	// Output gets each evaluator plain-text line as printed (frames, result
	// markers and payloads excluded) and when it was routed.
	Output func(line []byte, at time.Time)
	// ResultLine gets each line of the evaluator's that belongs to a result
	// (the ResultLine action: a marker, told without its nonce, a payload,
	// a blank line between them) and when it was routed, in its place among
	// the Output calls.
	ResultLine func(line []byte, at time.Time)
	// Result gets the result payload (see the Result action); the run then
	// ends.
	Result func(payload []byte)
	// Log gets each solution log frame that was kept (stream, decoded data)
	// and when it was routed.
	Log func(stream string, data []byte, at time.Time)
	// FirstEvaluatorLine is called once, when the evaluator's first stdout
	// line of any kind arrives (the judge's phase 2 starts there).
	FirstEvaluatorLine func(at time.Time)
	// Trace gets every line read from either side. With Call set too, a
	// line's own call event (the call or capability it opened, answered
	// or was refused for) comes with it, in TraceEvent.Call, rather than
	// to Call: one hook call per line.
	Trace func(ev TraceEvent)
	// Warn gets every line or frame the engine dropped, and when it was
	// routed.
	Warn func(from Side, reason DropReason, at time.Time)
	// Progress gets the stats after each completed or timed-out call.
	Progress func(s Stats)
	// Call gets each call and capability as it opens and closes (but those
	// that come to Trace with their line); setting it sets
	// Config.ReportCalls.
	Call func(ev CallEvent)
}

// CallEvent is a call (From Evaluator) or a capability (From Solution)
// opening or closing, as the engine saw it (CallOpened, CallClosed).
type CallEvent struct {
	Closed bool          // closing (End and Took are set), not opening
	From   Side          // the side that made the request and waits for the answer
	ID     []byte        // the decoded id
	Name   []byte        // the call's fn or the capability's name, decoded; nil if absent
	At     time.Time     // when the relay routed the line, or fired the deadline, that opened or closed it
	End    CallEnd       // Closed only
	Took   time.Duration // Closed only: from its arrival; zero for OutcomeRefused
}

// TraceEvent is one line seen by the relay.
type TraceEvent struct {
	From   Side      // the side whose stdout the line came from
	At     time.Time // when the relay routed it
	Kind   LineKind  // TooLong lines are reported with Kind Text and Length > len(Line)
	Line   []byte    // trimmed; for an over-cap line, its head
	Length int64     // the line's full length
	// Call is the call event the line caused, when Hooks.Call is set and
	// it caused one: the call or capability it opened (Call.From is the
	// line's side), answered (Call.From is the other side) or was refused
	// for (Call.Outcome is OutcomeRefused). Valid during the hook call.
	Call *CallEvent
}

// Relay defaults; a zero RelayConfig field means its default.
const (
	defaultWriteStall = 3 * time.Second
	defaultQueueBytes = 4 << 20 // bytes of frames waiting for one side's stdin
	defaultMaxLine    = 4 << 20 // the wire line cap
	defaultExitGrace  = 500 * time.Millisecond
)

// RelayConfig configures a Relay. The zero value means the defaults, no
// restart hook and no hooks.
type RelayConfig struct {
	Engine     Config        // the engine's limits and policy
	WriteStall time.Duration // a stdin write blocked this long means the side is gone
	QueueBytes int           // forwarded frames beyond this wait (back-pressure on the sender's reader)
	MaxLine    int           // the longest line read from a stdout (DefaultMaxLine 4 MiB); longer ones are LineTooLong
	ExitGrace  time.Duration // how long to wait on Endpoint.Exited after stdout EOF
	// Restart is called on RestartSolution. Nil means the solution cannot be
	// restarted: the engine then runs with the Continue policy.
	Restart RestartFunc
	Hooks   Hooks // what the run produces goes there
}

// Summary is how a run ended.
type Summary struct {
	Stats  Stats  // the engine's counters at the end
	Result []byte // the result payload (a copy), nil if none
	// ResultPlain: Result followed a plain ---RESULT--- (the last one, once
	// the evaluator was gone), not the signed marker; it is the evaluator's
	// own only if the evaluator exited cleanly, which the caller checks.
	ResultPlain   bool
	EvaluatorGone string    // why the evaluator was found gone, "" if it was not
	FirstOutput   time.Time // first evaluator stdout line; zero if none
	Restarts      int       // solution processes started after the first
}

// RestartError is returned by Run when the restart hook failed.
type RestartError struct{ Err error } // Err: the restart hook's error

// Error says the restart failed and why.
func (e *RestartError) Error() string { return "dual: restarting the solution: " + e.Err.Error() }

// Unwrap is the restart hook's error.
func (e *RestartError) Unwrap() error { return e.Err }

// InFlight returns how many calls (the evaluator waiting on the solution,
// queued ones included) and capabilities (the solution waiting on the
// evaluator) are in flight now. Safe to call at any time, also from a
// timer; not from a hook.
func (r *Relay) InFlight() (calls, capabilities int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.eng.InFlight()
}
