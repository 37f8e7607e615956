package trace

import (
	"encoding/json"
	"time"

	"github.com/tether-dev/tether/dual"
	"github.com/tether-dev/tether/judge"
)

// encoder turns events into trace lines (Writer.Observe's part): it
// records a call or answer with the frame that opened or answered it,
// applies the cap and counts what it left out.
type encoder struct {
	start      time.Time
	max        int64
	out        []byte // lines not yet queued for the file
	written    int64  // bytes encoded so far
	events     int64
	capped     bool
	unrec      map[string]int64
	unrecBytes int64
	cpuAtStart int64  // the process's CPU time at NewWriter, µs
	member     []byte // a rare event's member, encoded
}

// rec is one event to encode. Its byte slices are the event's.
type rec struct {
	t        int64 // µs since the header's Started
	n        int64 // line (or the line a call or answer carries): its full length; restart: restarts so far; start, exit: the solution's process number
	us       int64 // answer, compile: µs taken
	line     []byte
	id, name []byte // name nil: the call has none
	member   []byte // exit, lm, verdict, compile: `,"name":<JSON>`
	kind     judge.EventKind
	side     dual.Side
	lineKind dual.LineKind
	outcome  dual.CallEnd
	reason   dual.DropReason
}

// carriesFrame reports whether r is a call or answer recorded with the
// frame that opened or answered it (see carriesWhole).
func (r *rec) carriesFrame() bool {
	return r.line != nil && (r.kind == judge.EventCallOpened || r.kind == judge.EventCallClosed)
}

// observe encodes ev.
func (e *encoder) observe(ev *judge.Event) {
	r := rec{t: ev.At.Sub(e.start).Microseconds(), kind: ev.Kind, side: ev.Side}
	switch ev.Kind {
	case judge.EventLine:
		r.setLine(ev)
	case judge.EventCallOpened, judge.EventCallClosed:
		r.us, r.outcome, r.id, r.name = ev.Took.Microseconds(), ev.Outcome, ev.ID, ev.Name
		if ev.Line != nil {
			line := rec{t: r.t, kind: judge.EventLine, side: ev.LineSide()}
			line.setLine(ev)
			if !carriesWhole(ev, &line) {
				e.event(&line) // recorded on its own, before the call
				break
			}
			r.n, r.lineKind, r.line = line.n, line.lineKind, line.line
		}
	case judge.EventDrop:
		r.reason = ev.Reason
	case judge.EventRestart, judge.EventSideStart:
		r.n = int64(ev.Restarts)
	default: // exit, lm, verdict, compile
		r.n, r.us = int64(ev.Restarts), ev.Took.Microseconds()
		e.member = appendMember(e.member[:0], ev)
		r.member = e.member
	}
	e.event(&r)
}

// setLine sets r's line from ev's, trimmed to maxPayload.
func (r *rec) setLine(ev *judge.Event) {
	r.n, r.lineKind, r.line = ev.Length, ev.LineKind, ev.Line
	if len(r.line) > maxPayload {
		r.line = r.line[:maxPayload]
	}
}

// carriesWhole reports whether the call or answer ev is recorded with its
// line: a whole frame that opened it, or answered it with a result or an
// error. A trace then holds one line per call and one per answer, each
// with its frame. A refused call's line, and an answer rejected or cut,
// are recorded on their own.
func carriesWhole(ev *judge.Event, line *rec) bool {
	if line.lineKind != dual.Framed || line.n != int64(len(line.line)) {
		return false
	}
	return ev.Kind == judge.EventCallOpened ||
		ev.Outcome == dual.EndResult || ev.Outcome == dual.EndError
}

// event encodes r, or only counts it from the first event that would
// cross the cap on; the verdict is always recorded.
func (e *encoder) event(r *rec) {
	if !e.capped || r.kind == judge.EventVerdict {
		n := len(e.out)
		e.out = appendEvent(e.out, r)
		size := int64(len(e.out) - n)
		if r.kind == judge.EventVerdict || e.written+size <= e.max {
			e.written += size
			e.events++
			return
		}
		e.out = e.out[:n]
		e.capped = true
	}
	if e.unrec == nil {
		e.unrec = map[string]int64{}
	}
	e.unrec[kindOf(r.kind)]++
	carries := r.carriesFrame()
	if carries {
		e.unrec[KindLine]++ // its frame: a line of its own in format 1
	}
	if r.kind == judge.EventLine || carries {
		e.unrecBytes += r.n
	}
}

// end encodes the end line; closed is when the writer was closed.
func (e *encoder) end(closed time.Time) {
	end := Event{T: closed.Sub(e.start).Microseconds(), Ev: KindEnd, Events: e.events, Bytes: e.written, Capped: e.capped,
		Unrecorded: e.unrec, UnrecordedBytes: e.unrecBytes, JudgeCPUUs: processCPU() - e.cpuAtStart}
	if e.capped {
		end.Max = e.max
	}
	b, _ := json.Marshal(end)
	e.out = append(append(e.out, b...), '\n')
}

// appendEvent appends r's line.
func appendEvent(dst []byte, r *rec) []byte {
	dst = append(dst, `{"t":`...)
	dst = appendInt(dst, r.t)
	dst = append(dst, `,"ev":"`...)
	dst = append(dst, kindOf(r.kind)...)
	dst = append(dst, '"')
	switch r.kind {
	case judge.EventRestart, judge.EventVerdict, judge.EventCompile:
	default:
		dst = append(dst, `,"side":"`...)
		dst = append(dst, r.side.String()...)
		dst = append(dst, '"')
	}
	switch r.kind {
	case judge.EventLine:
		dst = append(dst, `,"kind":"`...)
		dst = append(dst, r.lineKind.String()...)
		dst = append(dst, '"')
		dst = appendLine(dst, r)
	case judge.EventCallOpened, judge.EventCallClosed:
		verbatim := r.carriesFrame() && verbatimFrame(r)
		if !verbatim { // a frame kept as written holds the id, and a call's frame its fn
			dst = append(dst, `,"id":`...)
			dst = appendText(dst, r.id)
		}
		if r.name != nil && !(verbatim && r.kind == judge.EventCallOpened) {
			dst = append(dst, `,"fn":`...)
			dst = appendText(dst, r.name)
		}
		if r.kind == judge.EventCallClosed {
			dst = append(dst, `,"outcome":"`...)
			dst = append(dst, r.outcome.String()...)
			dst = append(dst, `","us":`...)
			dst = appendInt(dst, r.us)
		}
		switch {
		case verbatim: // its len is the frame's
			dst = append(dst, `,"frame":`...)
			dst = append(dst, r.line...)
		case r.carriesFrame():
			dst = appendLine(dst, r)
		}
	case judge.EventDrop:
		dst = append(dst, `,"reason":"`...)
		dst = append(dst, r.reason.String()...)
		dst = append(dst, '"')
	case judge.EventRestart:
		dst = append(dst, `,"n":`...)
		dst = appendInt(dst, r.n)
	default: // start, exit, lm, verdict, compile
		if r.n > 0 { // the solution's process number (start, exit)
			dst = append(dst, `,"n":`...)
			dst = appendInt(dst, r.n)
		}
		if r.kind == judge.EventCompile {
			dst = append(dst, `,"us":`...)
			dst = appendInt(dst, r.us)
		}
		dst = append(dst, r.member...)
	}
	return append(dst, "}\n"...)
}

// verbatimFrame reports whether the frame r carries is kept as it was
// written: whole, and neither holding NaN or Infinity nor __bytes__
// values to summarise.
func verbatimFrame(r *rec) bool {
	if r.n > int64(len(r.line)) {
		return false
	}
	nonFinite, hasBytes := scanFrame(r.line)
	return !nonFinite && !hasBytes
}

// appendLine appends a line's members: a frame as the JSON value it is
// (big __bytes__ values summarised), anything else as text.
func appendLine(dst []byte, r *rec) []byte {
	line := r.line
	cut := r.n > int64(len(line))
	dst = append(dst, `,"len":`...)
	dst = appendInt(dst, r.n)
	if cut {
		dst = append(dst, `,"cut":true`...)
	}
	if r.lineKind == dual.Framed && !cut {
		n := len(dst)
		dst = append(dst, `,"frame":`...)
		if out, ok := appendFrame(dst, line); ok {
			return out
		}
		dst = dst[:n]
	}
	dst = append(dst, `,"text":`...)
	return appendText(dst, line)
}

// appendMember appends the member of a rare event, `,"name":<JSON>`.
func appendMember(dst []byte, ev *judge.Event) []byte {
	var name string
	var v any
	switch ev.Kind {
	case judge.EventSideExit:
		name, v = "exit", ev.Exit
	case judge.EventLM:
		name, v = "lm", ev.LM
	case judge.EventCompile:
		name, v = "compile", ev.Compile
	default:
		name, v = "result", ev.Result
	}
	b, err := json.Marshal(v)
	if err != nil {
		b = appendText(nil, []byte("trace: cannot encode: "+err.Error()))
	}
	dst = append(dst, `,"`...)
	dst = append(dst, name...)
	dst = append(dst, `":`...)
	return append(dst, b...)
}
