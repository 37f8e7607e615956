package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxLine bounds one line a Reader accepts: a kept payload (1 MiB) escaped
// as a JSON string at worst six bytes per byte, plus room for the rest.
const maxLine = 8 << 20

// Reader reads a trace: its Header, then its events in order.
type Reader struct {
	Header Header
	sc     *bufio.Scanner
	line   int
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
// not an event is an error naming its line number.
func (r *Reader) Next() (*Event, error) {
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
