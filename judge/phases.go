package judge

import "time"

// A run's evaluator has two time limits, one after the other: phase 1,
// Options.StartTimeout for its first line of output; phase 2, the
// problem's time limit, from that line on.

// startTimedOut is phase 1's timer: no evaluator output in StartTimeout.
func (r *run) startTimedOut() {
	r.mu.Lock()
	fire := r.firstOutput.IsZero() && !r.ended
	if fire {
		r.outcome.EvaluatorStartTimeout = true
	}
	r.mu.Unlock()
	if fire {
		r.cancel()
	}
}

// evaluatorStarted ends phase 1 and arms phase 2, the evaluator's time limit.
func (r *run) evaluatorStarted(at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.firstOutput.IsZero() || r.outcome.EvaluatorStartTimeout {
		return
	}
	r.firstOutput = at
	r.phase1.Stop()
	limit := time.Duration(r.problem.Runtime.Evaluator.TimeLimitMs)*time.Millisecond - time.Since(at)
	r.phase2 = time.AfterFunc(limit, r.timeLimitExceeded)
}

// timeLimitExceeded is phase 2's timer. Whether a call to the solution
// was in flight then says whose time it was (Decide): the relay is asked
// before the run's lock is taken (the relay calls into the run under its
// own lock).
func (r *run) timeLimitExceeded() {
	inFlight := false
	if relay := r.relay.Load(); relay != nil {
		calls, _ := relay.InFlight()
		inFlight = calls > 0
	}
	r.mu.Lock()
	fire := !r.ended
	if fire {
		r.outcome.TimeLimitExceeded = true
		r.outcome.CallInFlightAtTimeLimit = inFlight
	}
	r.mu.Unlock()
	if fire {
		r.cancel()
	}
}

func (r *run) endPhases() {
	r.mu.Lock()
	r.ended = true
	r.endedAt = time.Now()
	if r.phase1 != nil {
		r.phase1.Stop()
	}
	if r.phase2 != nil {
		r.phase2.Stop()
	}
	r.mu.Unlock()
}
