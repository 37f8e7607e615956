package trace

import (
	"encoding/json"

	"github.com/tether-dev/tether/dual"
	"github.com/tether-dev/tether/judge"
)

// encoder turns the recs Observe kept into trace lines, on the file
// writer's goroutine: it alone applies the cap and counts what it left out.
type encoder struct {
	max        int64
	out        []byte // lines not yet written
	written    int64  // bytes encoded so far
	events     int64
	capped     bool
	unrec      map[string]int64
	unrecBytes int64
	cpuAtStart int64 // the process's CPU time at NewWriter, µs
}

// encode encodes recs (their bytes in data, in order) and writes them,
// writeAt bytes at a time. After a write error (failed) it only drops them.
func (e *encoder) encode(recs []rec, data []byte, failed bool, write func([]byte) error) error {
	if failed {
		return nil
	}
	off := 0
	for i := range recs {
		r := &recs[i]
		n := off + int(r.a) + int(r.b) + int(r.c)
		e.event(r, data[off:n])
		off = n
		if len(e.out) >= writeAt {
			if err := e.writeOut(write); err != nil {
				return err
			}
		}
	}
	return e.writeOut(write)
}

func (e *encoder) writeOut(write func([]byte) error) error {
	if len(e.out) == 0 {
		return nil
	}
	err := write(e.out)
	e.out = e.out[:0]
	return err
}

// event encodes r, or only counts it from the first event that would
// cross the cap on; the verdict is always recorded.
func (e *encoder) event(r *rec, b []byte) {
	if !r.skipped && (!e.capped || r.kind == judge.EventVerdict) {
		n := len(e.out)
		e.out = appendEvent(e.out, r, b)
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

// end encodes and writes the end line; t is when the writer was closed.
func (e *encoder) end(t int64, write func([]byte) error) error {
	end := Event{T: t, Ev: KindEnd, Events: e.events, Bytes: e.written, Capped: e.capped,
		Unrecorded: e.unrec, UnrecordedBytes: e.unrecBytes, JudgeCPUUs: processCPU() - e.cpuAtStart}
	if e.capped {
		end.Max = e.max
	}
	b, _ := json.Marshal(end)
	e.out = append(append(e.out, b...), '\n')
	return e.writeOut(write)
}

// appendEvent appends r's line; b is its bytes.
func appendEvent(dst []byte, r *rec, b []byte) []byte {
	dst = append(dst, `{"t":`...)
	dst = appendInt(dst, r.t)
	dst = append(dst, `,"ev":"`...)
	dst = append(dst, kindOf(r.kind)...)
	dst = append(dst, '"')
	switch r.kind {
	case judge.EventRestart, judge.EventVerdict:
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
		dst = appendLine(dst, r, b)
	case judge.EventCallOpened, judge.EventCallClosed:
		line, id, name := b[:r.a], b[r.a:r.a+r.b], b[r.a+r.b:]
		verbatim := r.carriesFrame() && verbatimFrame(r, line)
		if r.carriesFrame() && !verbatim { // Observe kept neither the id nor a call's fn
			var fn []byte
			id, fn = frameNames(line, r.kind == judge.EventCallOpened)
			if r.kind == judge.EventCallOpened {
				name = fn
			}
		}
		if !verbatim { // a frame kept as written holds the id, and a call's frame its fn
			dst = append(dst, `,"id":`...)
			dst = appendText(dst, id)
		}
		if r.hasName && !(verbatim && r.kind == judge.EventCallOpened) {
			dst = append(dst, `,"fn":`...)
			dst = appendText(dst, name)
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
			dst = append(dst, line...)
		case r.carriesFrame():
			dst = appendLine(dst, r, line)
		}
	case judge.EventDrop:
		dst = append(dst, `,"reason":"`...)
		dst = append(dst, r.reason.String()...)
		dst = append(dst, '"')
	case judge.EventRestart:
		dst = append(dst, `,"n":`...)
		dst = appendInt(dst, r.n)
	default: // the member Observe encoded
		dst = append(dst, b...)
	}
	return append(dst, "}\n"...)
}

// verbatimFrame reports whether line, the frame r carries, is kept as it
// was written: whole, and neither holding NaN or Infinity nor __bytes__
// values to summarise.
func verbatimFrame(r *rec, line []byte) bool {
	if r.n > int64(len(line)) {
		return false
	}
	nonFinite, hasBytes := scanFrame(line)
	return !nonFinite && !hasBytes
}

// appendLine appends a line event's members: a frame as the JSON value it
// is (big __bytes__ values summarised), anything else as text.
func appendLine(dst []byte, r *rec, line []byte) []byte {
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
