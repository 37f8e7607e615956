package dual

import (
	"fmt"
	"time"

	"github.com/tether-dev/tether/codec"
)

// Expire fires every deadline at or before now: each call or capability
// past its deadline is removed and its waiting side gets the CallTimeout
// error. Under the Restart policy a call's timeout also restarts the
// solution (see doc.go). A ready deadline that passed gives Fatal.
func (e *engine) Expire(now time.Time, out []action) []action {
	e.scratch = e.scratch[:0]
	if e.sol == awaitingReady && e.readyArmed && !now.Before(e.readyDeadline) {
		out = e.fatal(out, fmt.Errorf("%w: no ready within %v", ErrSolutionNotReady, e.cfg.ReadyTimeout), now)
	}
	for {
		i := e.t.earliest()
		if i < 0 || now.Before(e.t.slots[i].deadline) {
			return out
		}
		en := &e.t.slots[i]
		dir, sent := en.dir, en.sent
		e.t.remove(i)
		if dir == toSolution {
			e.stats.CallTimeouts++
		} else {
			e.stats.CapabilityTimeouts++
		}
		out = e.closed(out, en, EndTimeout, now)
		out = e.reply(out, dir.waiter(), en.rawID, codec.CodeCallTimeout, msgCallTimeout, nil)
		if dir == toSolution && sent && e.cfg.OnCallTimeout == Restart && e.sol == live {
			out = e.restartAfterTimeout(out, now)
		}
	}
}

// restartAfterTimeout fails every call sent to the current solution, forgets
// its capabilities, and asks for a fresh solution.
func (e *engine) restartAfterTimeout(out []action, now time.Time) []action {
	out = e.failSent(out, msgRestarted, now)
	e.sol = restarting
	e.stats.Restarts++
	return append(out, action{Kind: actRestartSolution})
}

// failSent answers every call the current solution owes with SystemError
// msg, and drops the capabilities it is waiting for: their late answers from
// the evaluator are then dropped as unknown ids.
func (e *engine) failSent(out []action, msg string, now time.Time) []action {
	for i := range e.t.slots {
		en := &e.t.slots[i]
		if !en.used {
			continue
		}
		switch {
		case en.dir == toEvaluator:
			e.t.remove(int32(i))
			out = e.closed(out, en, EndAbandoned, now)
		case en.sent:
			e.t.remove(int32(i))
			out = e.closed(out, en, EndFailed, now)
			out = e.reply(out, Evaluator, en.rawID, codec.CodeSystemError, msg, nil)
		}
	}
	return out
}

func (e *engine) fatal(out []action, err error, now time.Time) []action {
	e.sol = dead
	e.readyArmed = false
	e.goneReason = "solution host did not start"
	out = e.failSent(out, msgGonePrefix+e.goneReason, now)
	for _, i := range e.queue {
		if en := &e.t.slots[i]; en.used && !en.sent && en.dir == toSolution {
			e.t.remove(i)
			out = e.closed(out, en, EndFailed, now)
			out = e.reply(out, Evaluator, en.rawID, codec.CodeSystemError, msgGonePrefix+e.goneReason, nil)
		}
	}
	e.queue, e.queuedBytes = e.queue[:0], 0
	return append(out, action{Kind: actFatal, Err: err})
}

// Gone tells the engine that side's process is gone: its stdout reached
// EOF, it exited, or a write to its stdin failed or blocked. reason names
// how (for example "exit status 1" or "signal: killed") and goes into the
// SystemError messages. Calls never fail twice: Gone for a side already
// gone does nothing.
//
// Solution gone while live: every call it owes fails at once with
// SystemError "solution is gone: REASON", the capabilities it waits for are
// dropped; under Restart the next call restarts it, under Continue every
// later call fails at once. Gone before its ready: Fatal
// (ErrSolutionNotReady). Evaluator gone: the capabilities it owes are
// dropped and every later evaluator line is ignored (the run is ending);
// the payload of its last plain marker, if nothing came after it, is the
// Result (Plain).
func (e *engine) Gone(side Side, reason string, now time.Time, out []action) []action {
	e.scratch = e.scratch[:0]
	if side == Evaluator {
		if !e.evaluatorGone {
			e.evaluatorGone = true
			if e.rawPayload != nil && !e.resultDone {
				e.resultDone = true
				out = append(out, action{Kind: actResult, Text: e.rawPayload, Plain: true})
			}
			for i := range e.t.slots {
				if en := &e.t.slots[i]; en.used && en.dir == toEvaluator {
					e.t.remove(int32(i))
					out = e.closed(out, en, EndFailed, now)
					out = e.reply(out, Solution, en.rawID, codec.CodeSystemError, msgEvaluatorGone+reason, nil)
				}
			}
		}
		return out
	}
	switch e.sol {
	case awaitingReady:
		return e.fatal(out, fmt.Errorf("%w: it exited before ready: %s", ErrSolutionNotReady, reason), now)
	case live:
		e.goneReason = reason
		out = e.failSent(out, msgGonePrefix+reason, now)
		if e.sol = dead; e.cfg.OnCallTimeout == Restart {
			e.sol = down
		}
	}
	return out
}
