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

// Relay defaults; a zero RelayConfig field means its default.
const (
	defaultWriteStall = 3 * time.Second
	defaultQueueBytes = 4 << 20 // bytes of frames waiting for one side's stdin
	defaultMaxLine    = 4 << 20 // the wire line cap
	defaultExitGrace  = 500 * time.Millisecond
)

// RelayConfig configures a Relay. The zero value means the defaults, no
// restart hook and no observer.
type RelayConfig struct {
	Engine     Config        // the engine's limits and policy
	WriteStall time.Duration // a stdin write blocked this long means the side is gone
	QueueBytes int           // forwarded frames beyond this wait (back-pressure on the sender's reader)
	MaxLine    int           // the longest line read from a stdout (DefaultMaxLine 4 MiB); longer ones are LineTooLong
	ExitGrace  time.Duration // how long to wait on Endpoint.Exited after stdout EOF
	// Restart is called on RestartSolution. Nil means the solution cannot be
	// restarted: the engine then runs with the Continue policy.
	Restart RestartFunc
	// Observer is told the relay's events (event.go): one at a time, in
	// the order things happened, after the relay has forwarded the lines
	// they report, outside its lock, and all before Run returns. It must
	// not call Relay methods.
	Observer Observer[Event]
	// FirstEvaluatorLine, if set, is called once, at once and with the
	// relay's lock held, when the evaluator's first stdout line of any
	// kind arrives (the judge's phase 2 starts there). It is not an event:
	// a timer that must start then cannot wait for the observer's turn.
	FirstEvaluatorLine func(at time.Time)
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
// timer; not from the observer.
func (r *Relay) InFlight() (calls, capabilities int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.eng.InFlight()
}
