package dual

import (
	"fmt"
	"time"

	"github.com/tether-dev/tether/codec"
)

var shutdownFrame = []byte(`{"type":"shutdown"}`)

// solutionState is where the solution host is in its life.
type solutionState uint8

const (
	awaitingReady solutionState = iota // started (or about to be); frames before ready are ignored
	live                               // sent ready; frames are routed
	restarting                         // RestartSolution emitted; waiting for SolutionStarted
	down                               // gone; the next call restarts it (Restart policy)
	dead                               // gone for good (Continue policy, or it never started)
)

// Engine is the routing state machine of one run: lines and clock readings
// in, actions out. It starts no goroutines, reads no clock and does no I/O.
// It is not safe for concurrent use: the caller serialises every method.
//
// Every method appends its actions to out and returns it, so a caller that
// reuses one slice allocates nothing in steady state.
type engine struct {
	cfg   Config
	t     *table
	f     Frame
	stats Stats

	sol            solutionState
	goneReason     string
	readyDeadline  time.Time // valid while sol == awaitingReady && readyArmed
	readyArmed     bool
	readySeen      bool
	evaluatorGone  bool
	awaitingResult marker // the last marker seen, while its payload line has not come
	resultDone     bool
	// rawPayload is the payload after the last plain marker, held until the
	// evaluator is gone: a later marker or text line replaces or cancels
	// it, so the evaluator's own result, printed last, wins over one
	// forged in text it printed before (Neuro OJ's rule).
	rawPayload   []byte
	signedMarker string // the marker that carries the run's nonce; "" without one

	capTimeouts map[string]time.Duration // cap_reg timeouts by capability name
	queue       []int32                  // calls held while no solution is ready, in arrival order
	queuedBytes int
	runLogBytes int
	// runLogFrames counts the log frames kept in the run.
	runLogFrames int
	// shutdownSent: this solution process's shutdown was forwarded; one
	// is all the evaluator needs.
	shutdownSent bool

	scratch []byte // frames the engine writes; reset by every method

	lastKind LineKind // the class of the line the last Line call routed
	lastLine []byte   // that line, trimmed
}

// LastLine returns the class and the trimmed bytes of the line the last
// Line call routed (a trace records them without scanning the line again).
// The bytes are valid as long as that line.
func (e *engine) LastLine() (LineKind, []byte) { return e.lastKind, e.lastLine }

// NewEngine returns an engine for one run. The solution counts as starting:
// call SolutionStarted when its process is up to arm the ready timeout.
func newEngine(cfg Config) *engine {
	e := &engine{cfg: cfg.withDefaults(), t: newTable(), capTimeouts: make(map[string]time.Duration)}
	if cfg.ResultNonce != "" {
		e.signedMarker = codec.SignedResultMarker(cfg.ResultNonce)
	}
	return e
}

// marker is the kind of result marker the evaluator printed last.
type marker uint8

const (
	markerNone   marker = iota
	markerPlain         // exactly ---RESULT---: its payload counts only if nothing follows it
	markerSigned        // ---RESULT--- NONCE: its payload is the result at once
)

// Stats returns the counters so far.
func (e *engine) Stats() Stats { return e.stats }

// InFlight returns how many calls (evaluator waiting) and capabilities
// (solution waiting) are in flight.
func (e *engine) InFlight() (calls, capabilities int) {
	return e.t.count(toSolution), e.t.count(toEvaluator)
}

// NextDeadline returns the earliest time at which Expire has work to do.
func (e *engine) NextDeadline() (time.Time, bool) {
	var d time.Time
	ok := false
	if i := e.t.earliest(); i >= 0 {
		d, ok = e.t.slots[i].deadline, true
	}
	if e.sol == awaitingReady && e.readyArmed && (!ok || e.readyDeadline.Before(d)) {
		d, ok = e.readyDeadline, true
	}
	return d, ok
}

// SolutionStarted tells the engine a solution process is up (the first one,
// or a fresh one after RestartSolution): it now has ReadyTimeout to send
// ready. Calls queued meanwhile are forwarded when it does.
func (e *engine) SolutionStarted(now time.Time, out []action) []action {
	e.scratch = e.scratch[:0]
	if e.sol == dead {
		return out
	}
	e.sol = awaitingReady
	e.shutdownSent = false
	e.readyArmed = true
	e.readyDeadline = now.Add(e.cfg.ReadyTimeout)
	return out
}

// Line routes one line read from side from's stdout (with or without its
// newline; it is trimmed here to classify it, and an evaluator's text is
// reported as printed). line is not kept after Line returns.
func (e *engine) Line(from Side, line []byte, now time.Time, out []action) []action {
	e.scratch = e.scratch[:0]
	kind, t := Classify(line, &e.f)
	e.lastKind, e.lastLine = kind, t
	if from == Evaluator {
		if e.evaluatorGone {
			return e.drop(out, Evaluator, DropEvaluatorGone)
		}
		printed := printedLine(line)
		if kind == Text && e.signedMarker != "" && string(t) == e.signedMarker {
			e.lastKind = Marker
			if !e.resultDone {
				e.rawPayload, e.awaitingResult = nil, markerSigned
			}
			// The nonce is the run's secret: the line is told as the plain marker.
			return append(out, action{Kind: actResultLine, Text: plainMarker})
		}
		switch kind {
		case Marker:
			if !e.resultDone {
				e.rawPayload, e.awaitingResult = nil, markerPlain
			}
			return append(out, action{Kind: actResultLine, Text: printed})
		case Text:
			if len(t) == 0 {
				if e.awaitingResult != markerNone {
					return append(out, action{Kind: actResultLine, Text: printed})
				}
				return append(out, action{Kind: actOutput, Text: printed})
			}
			switch e.awaitingResult {
			case markerSigned:
				e.awaitingResult, e.resultDone = markerNone, true
				return append(out, action{Kind: actResultLine, Text: printed}, action{Kind: actResult, Text: t})
			case markerPlain:
				e.awaitingResult = markerNone
				e.rawPayload = append(e.rawPayload[:0], t...)
				return append(out, action{Kind: actResultLine, Text: printed})
			}
			e.rawPayload = nil // output after a plain result cancels it
			return append(out, action{Kind: actOutput, Text: printed})
		}
		return e.evaluatorFrame(t, now, out)
	}
	if kind != Framed {
		return e.drop(out, Solution, DropSolutionText)
	}
	return e.solutionFrame(t, now, out)
}

var plainMarker = []byte(codec.ResultMarker)

// printedLine is line as the evaluator printed it, without its line end.
func printedLine(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line
}

// LineTooLong handles a line the wire reader skipped because it was over
// its cap (length bytes; head its first bytes). If head shows a frame's
// string type and id, it is handled as an oversize frame of that type and id
// (Rejected to the waiting side or the sender); otherwise it is dropped and
// counted (DropLineTooLong): an evaluator's text line that long is not output.
func (e *engine) LineTooLong(from Side, length int64, head []byte, now time.Time, out []action) []action {
	e.scratch = e.scratch[:0]
	var f Frame
	if from == Solution && e.sol != live || from == Evaluator && e.evaluatorGone || !scanHead(head, &f) {
		return e.drop(out, from, DropLineTooLong)
	}
	size := int(min(length, int64(^uint(0)>>1)))
	switch {
	case from == Evaluator && f.Type == TypeCall, from == Solution && f.Type == TypeCapability:
		return e.rejectRequest(out, from, &f, size)
	case f.Type == TypeResult || f.Type == TypeError:
		return e.response(out, from, &f, nil, size, now)
	}
	return e.drop(out, from, DropLineTooLong)
}

// Drop counts a line the caller dropped before it reached the engine (for
// example a line from a solution process already replaced).
func (e *engine) Drop(from Side, reason DropReason, out []action) []action {
	e.scratch = e.scratch[:0]
	return e.drop(out, from, reason)
}

func (e *engine) drop(out []action, from Side, r DropReason) []action {
	e.stats.Dropped[r]++
	return append(out, action{Kind: actWarn, From: from, Reason: r})
}

func (e *engine) evaluatorFrame(line []byte, now time.Time, out []action) []action {
	f := &e.f
	switch f.Type {
	case TypeCall:
		return e.call(line, now, out)
	case TypeCapReg:
		if f.Name == nil || len(line) > e.cfg.MaxFrame {
			return e.drop(out, Evaluator, DropMalformed)
		}
		name := Unquote(f.Name)
		if f.TimeoutMS > 0 {
			e.capTimeouts[string(name)] = time.Duration(f.TimeoutMS) * time.Millisecond
		} else {
			delete(e.capTimeouts, string(name))
		}
		return out
	case TypeResult, TypeError:
		return e.response(out, Evaluator, f, line, len(line), now)
	case TypeLog:
		return e.drop(out, Evaluator, DropEvaluatorLog)
	}
	return e.drop(out, Evaluator, DropType)
}

func (e *engine) solutionFrame(line []byte, now time.Time, out []action) []action {
	f := &e.f
	switch e.sol {
	case awaitingReady:
		if f.Type != TypeReady {
			return e.drop(out, Solution, DropBeforeReady)
		}
		return e.ready(now, out)
	case live:
	default:
		return e.drop(out, Solution, DropOldSolution)
	}
	switch f.Type {
	case TypeCapability:
		return e.capability(line, now, out)
	case TypeResult, TypeError:
		return e.response(out, Solution, f, line, len(line), now)
	case TypeLog:
		return e.log(line, out)
	case TypeShutdown:
		if len(line) > e.cfg.MaxFrame {
			return e.drop(out, Solution, DropOversize)
		}
		if e.evaluatorGone {
			return e.drop(out, Solution, DropEvaluatorGone)
		}
		if e.shutdownSent {
			return e.drop(out, Solution, DropRepeated)
		}
		// The evaluator needs to hear it once, and nothing the solution
		// added to it.
		e.shutdownSent = true
		return append(out, action{Kind: actSend, To: Evaluator, Frame: shutdownFrame, Unasked: true})
	}
	return e.drop(out, Solution, DropType)
}

// ready marks the solution live and forwards the calls queued for it.
func (e *engine) ready(now time.Time, out []action) []action {
	e.sol = live
	e.readyArmed = false
	out = append(out, action{Kind: actSolutionReady, First: !e.readySeen})
	e.readySeen = true
	for _, i := range e.queue {
		en := &e.t.slots[i]
		if !en.used || en.sent || en.dir != toSolution {
			continue // answered or expired while queued
		}
		en.sent = true
		out = append(out, action{Kind: actSend, To: Solution, Frame: en.frame})
	}
	e.queue = e.queue[:0]
	e.queuedBytes = 0
	return out
}

// requestID checks a request's id; on failure it answers or drops and reports false.
func (e *engine) requestID(out []action, from Side, size int) ([]action, bool) {
	f := &e.f
	if f.ID == nil || string(f.ID) == `""` { // absent, not a string, or empty
		return e.drop(out, from, DropNoID), false
	}
	if size > e.cfg.MaxFrame {
		return e.rejectRequest(out, from, f, size), false
	}
	if len(Unquote(f.ID)) > e.cfg.MaxIDLen {
		msg := append([]byte(msgIDTooLongPrefix), fmt.Sprint(e.cfg.MaxIDLen, " bytes")...)
		out = e.refused(out, from, f)
		return e.reply(out, from, f.ID, codec.CodeRejected, string(msg), &e.stats.Rejected), false
	}
	return out, true
}

func (e *engine) call(line []byte, now time.Time, out []action) []action {
	out, ok := e.requestID(out, Evaluator, len(line))
	if !ok {
		return out
	}
	id := Unquote(e.f.ID)
	var code, msg string
	var counter *int64
	switch {
	case e.t.find(toSolution, id) >= 0:
		code, msg, counter = codec.CodeRejected, msgDuplicateCall, &e.stats.Rejected
	case e.t.count(toSolution) >= e.cfg.MaxInFlight:
		code, msg, counter = codec.CodeRejected, msgTooManyInFlight, &e.stats.Rejected
	case e.sol == dead:
		code, msg = codec.CodeSystemError, msgGonePrefix+e.goneReason
	case e.sol != live && e.queuedBytes+len(line) > e.cfg.MaxQueuedBytes:
		code, msg = codec.CodeSystemError, msgQueueFull
	}
	if code != "" {
		out = e.refused(out, Evaluator, &e.f)
		return e.reply(out, Evaluator, e.f.ID, code, msg, counter)
	}
	timeout := e.cfg.CallTimeout
	if e.f.TimeoutMS > 0 {
		timeout = time.Duration(e.f.TimeoutMS) * time.Millisecond
	}
	i := e.t.insert(toSolution, id, e.f.ID, now.Add(timeout))
	e.stats.Calls++
	out = e.opened(out, i, e.f.Fn, now)
	if e.sol == live {
		e.t.slots[i].sent = true
		return append(out, action{Kind: actSend, To: Solution, Frame: line})
	}
	en := &e.t.slots[i]
	en.frame = append(en.frame[:0], line...)
	e.queue = append(e.queue, i)
	e.queuedBytes += len(line)
	if e.sol == down {
		e.sol = restarting
		e.stats.Restarts++
		out = append(out, action{Kind: actRestartSolution})
	}
	return out
}

func (e *engine) capability(line []byte, now time.Time, out []action) []action {
	if e.evaluatorGone {
		return e.drop(out, Solution, DropEvaluatorGone)
	}
	out, ok := e.requestID(out, Solution, len(line))
	if !ok {
		return out
	}
	id := Unquote(e.f.ID)
	if e.t.find(toEvaluator, id) >= 0 {
		out = e.refused(out, Solution, &e.f)
		return e.reply(out, Solution, e.f.ID, codec.CodeRejected, msgDuplicateCap, &e.stats.Rejected)
	}
	if e.t.count(toEvaluator) >= e.cfg.MaxInFlight {
		out = e.refused(out, Solution, &e.f)
		return e.reply(out, Solution, e.f.ID, codec.CodeRejected, msgTooManyInFlight, &e.stats.Rejected)
	}
	// The deadline is the evaluator's (cap_reg) or the problem's: a
	// timeout_ms in the frame is the untrusted side's and is ignored.
	timeout := e.cfg.CallTimeout
	if e.f.Name != nil {
		if d, ok := e.capTimeouts[string(Unquote(e.f.Name))]; ok {
			timeout = d
		}
	}
	i := e.t.insert(toEvaluator, id, e.f.ID, now.Add(timeout))
	e.stats.Capabilities++
	out = e.opened(out, i, e.f.Name, now)
	return append(out, action{Kind: actSend, To: Evaluator, Frame: line, Unasked: true})
}

// response routes a result or error frame f from side from. line is nil
// when the frame was too long to hold; size is its length.
func (e *engine) response(out []action, from Side, f *Frame, line []byte, size int, now time.Time) []action {
	rawID := f.ID
	if rawID == nil || string(rawID) == `""` {
		return e.drop(out, from, DropNoID)
	}
	id := Unquote(rawID)
	owed := toEvaluator // the evaluator answers capabilities
	if from == Solution {
		owed = toSolution
	}
	i := e.t.find(owed, id)
	if i < 0 {
		if e.t.find(1-owed, id) >= 0 {
			return e.drop(out, from, DropWrongSide)
		}
		return e.drop(out, from, DropUnknownID)
	}
	en := &e.t.slots[i]
	if owed == toSolution && !en.sent {
		return e.drop(out, from, DropUnknownID) // queued for a solution not yet ready
	}
	e.t.remove(i)
	if owed == toSolution {
		e.stats.Completed++
	}
	if line == nil || size > e.cfg.MaxFrame {
		e.stats.Rejected++
		out = e.closed(out, en, EndRejected, now)
		msg := string(frameSizeMessage(nil, size, e.cfg.MaxFrame))
		return e.reply(out, from.Other(), en.rawID, codec.CodeRejected, msg, nil)
	}
	o := EndResult
	if f.Type == TypeError {
		o = EndError
	}
	out = e.closed(out, en, o, now)
	return append(out, action{Kind: actSend, To: from.Other(), Frame: line})
}

// rejectRequest answers an oversize call or capability f to its sender.
func (e *engine) rejectRequest(out []action, from Side, f *Frame, size int) []action {
	e.stats.Rejected++
	out = e.refused(out, from, f)
	msg := frameSizeMessage(nil, size, e.cfg.MaxFrame)
	return e.reply(out, from, f.ID, codec.CodeRejected, string(msg), nil)
}
