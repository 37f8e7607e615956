package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/tether-dev/tether/dual"
)

// maxLine bounds one line a Reader accepts: a kept payload (1 MiB) escaped
// as a JSON string at worst six bytes per byte, plus room for the rest.
const maxLine = 8 << 20

// Reader reads a trace: its Header, then its events in order.
type Reader struct {
	Header Header
	sc     *bufio.Scanner
	line   int
	next   *Event // the call or answer whose line Next returned first
}

// ErrNotTrace: the first line is not a trace header.
var ErrNotTrace = errors.New("trace: not a trace file (its first line has no \"trace\" version)")

// NewReader reads the header from r. A trace of a version newer than this
// package writes is refused: its events may mean what this reader cannot
// know.
func NewReader(r io.Reader) (*Reader, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	rd := &Reader{sc: sc}
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("trace: reading the header: %w", err)
		}
		return nil, fmt.Errorf("%w: the file is empty", ErrNotTrace)
	}
	rd.line = 1
	if err := json.Unmarshal(sc.Bytes(), &rd.Header); err != nil || rd.Header.Trace == 0 {
		return nil, ErrNotTrace
	}
	if rd.Header.Trace > Version {
		return nil, fmt.Errorf("trace: format version %d is newer than this tether reads (up to %d); use a newer tether",
			rd.Header.Trace, Version)
	}
	return rd, nil
}

// Next returns the next event, or io.EOF after the last. A line that is
// not an event is an error naming its line number. A call or answer that
// carries its frame (versions 2 and 3) comes as two events, as in version
// 1: the line, then the call or answer with its id and fn.
func (r *Reader) Next() (*Event, error) {
	if ev := r.next; ev != nil {
		r.next = nil
		return ev, nil
	}
	for r.sc.Scan() {
		r.line++
		b := r.sc.Bytes()
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var ev Event
		if err := json.Unmarshal(b, &ev); err != nil {
			return nil, fmt.Errorf("trace: line %d: %w", r.line, err)
		}
		if ev.Ev == "" {
			return nil, fmt.Errorf("trace: line %d: no \"ev\" member", r.line)
		}
		if (ev.Ev == KindCall || ev.Ev == KindAnswer) && (ev.Len > 0 || ev.Frame != nil) {
			ev.fromFrame()
			r.next = &ev
			return ev.splitLine(), nil
		}
		return &ev, nil
	}
	if err := r.sc.Err(); err != nil {
		return nil, fmt.Errorf("trace: line %d: %w", r.line+1, err)
	}
	return nil, io.EOF
}

// ReadAll reads the whole trace from r.
func ReadAll(r io.Reader) (Header, []*Event, error) {
	rd, err := NewReader(r)
	if err != nil {
		return Header{}, nil, err
	}
	var evs []*Event
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return rd.Header, evs, nil
		}
		if err != nil {
			return rd.Header, evs, err
		}
		evs = append(evs, ev)
	}
}

// fromFrame fills in what a version 3 call or answer leaves to the frame
// it carries when that frame is kept as written: its len, its id, and a
// call's fn (a capability's name).
func (ev *Event) fromFrame() {
	if ev.Frame == nil || ev.Len > 0 {
		return
	}
	ev.Len = int64(len(ev.Frame))
	id, fn := frameNames(ev.Frame, ev.Ev == KindCall)
	ev.ID = string(bytes.ToValidUTF8(id, replacement))
	if ev.Ev == KindCall {
		ev.Fn = string(bytes.ToValidUTF8(fn, replacement))
	}
}

// frameNames is the id of a call, capability, result or error frame, and
// (call set) the call's fn or the capability's name, decoded as the judge
// decodes them: what it reports with the call or answer the frame carries.
func frameNames(frame []byte, call bool) (id, fn []byte) {
	var f dual.Frame
	if kind, _ := dual.Classify(frame, &f); kind != dual.Framed {
		return nil, nil
	}
	if f.ID != nil {
		id = dual.Unquote(f.ID)
	}
	name := f.Fn
	if f.Type == dual.TypeCapability {
		name = f.Name
	}
	if call && name != nil {
		fn = dual.Unquote(name)
	}
	return id, fn
}

// splitLine takes the frame out of a call or answer that carries it and
// returns it as the line event it was: written by the caller for a call,
// by the other side for an answer.
func (ev *Event) splitLine() *Event {
	side := ev.Side
	if ev.Ev == KindAnswer {
		side = "evaluator"
		if ev.Side == "evaluator" {
			side = "solution"
		}
	}
	line := &Event{T: ev.T, Ev: KindLine, Side: side, Kind: "frame", Len: ev.Len, Frame: ev.Frame, Text: ev.Text, Cut: ev.Cut}
	ev.Len, ev.Frame, ev.Text, ev.Cut = 0, nil, nil, false
	return line
}
