package dual

import (
	"bytes"
	"encoding/json"

	"github.com/tether-dev/tether/codec"
)

// LineKind is the class of one trimmed line.
type LineKind uint8

const (
	Text   LineKind = iota // anything that is neither a marker nor a frame
	Marker                 // exactly ---RESULT---
	Framed                 // a valid JSON object (UTF-8, NaN and ±Infinity allowed) whose "type" is a string
)

// String names the kind as a trace does: text, marker or frame.
func (k LineKind) String() string { return nameOf([]string{"text", "marker", "frame"}, k, "text") }

// FrameType is the "type" of a frame; TypeOther covers every unknown type.
type FrameType uint8

// The frame types of the judge protocol (docs/protocol/judge.md).
const (
	TypeOther      FrameType = iota // any type not below
	TypeReady                       // "ready": the solution host is up
	TypeCall                        // "call": the evaluator calls a solution function
	TypeResult                      // "result": an answer to a call or capability
	TypeError                       // "error": an error answer to a call or capability
	TypeCapability                  // "capability": the solution asks the evaluator
	TypeCapReg                      // "cap_reg": the evaluator sets a capability's timeout
	TypeLog                         // "log": a solution log line
	TypeShutdown                    // "shutdown": the solution host is ending
)

var typeNames = [...]string{"other", "ready", "call", "result", "error", "capability", "cap_reg", "log", "shutdown"}

// String is the type as the protocol spells it.
func (t FrameType) String() string { return nameOf(typeNames[:], t, "other") }

// Frame holds what routing needs from one frame, as slices of the line it was
// parsed from (valid as long as that line). String fields are raw JSON tokens
// with their quotes and escapes, nil when the key is absent or its value is
// not a string; with a repeated key the last one wins, as in Python's json.
// args and value are never decoded: the original bytes are forwarded.
type Frame struct {
	Type       FrameType // the "type" member, decoded
	TypeRaw    []byte    // the "type" token
	ID         []byte    // the "id" token, nil unless a string
	HasID      bool      // "id" present, whatever its JSON type
	Fn         []byte    // the "fn" token (a call's function)
	Name       []byte    // the "name" token (a capability's or cap_reg's name)
	Stream     []byte    // the "stream" token (a log's stream)
	Data       []byte    // the "data" token (a log's text)
	TimeoutMS  int64     // the "timeout_ms" value if it is a positive integer literal, else 0
	HasTimeout bool      // "timeout_ms" present, whatever its value
}

// Classify trims line (Unicode white space at both ends) and classifies it.
// For a Framed line it fills f; otherwise f's contents are unspecified.
// It allocates nothing unless the type token holds escapes. The returned
// slice is the trimmed line, a sub-slice of line.
func Classify(line []byte, f *Frame) (LineKind, []byte) {
	t := bytes.TrimSpace(line)
	if len(t) == len(codec.ResultMarker) && string(t) == codec.ResultMarker {
		return Marker, t
	}
	if len(t) < 2 || t[0] != '{' {
		return Text, t
	}
	*f = Frame{}
	if !scanObject(t, f) || f.TypeRaw == nil {
		return Text, t
	}
	f.Type = frameType(f.TypeRaw)
	return Framed, t
}

// ScanHead reads the type and id of a frame from the first bytes of a line
// that was too long to hold: the members fully present in head are read,
// and the scan stops where head is cut. ok reports that a string type and a
// string id were found. Nothing is validated past the cut.
func scanHead(head []byte, f *Frame) (ok bool) {
	t := bytes.TrimLeft(head, " \t\r\n\v\f")
	*f = Frame{}
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	scanObject(t, f)
	if f.TypeRaw == nil || f.ID == nil {
		return false
	}
	f.Type = frameType(f.TypeRaw)
	return true
}

func frameType(tok []byte) FrameType {
	t := typeOf(tok[1 : len(tok)-1])
	if t == TypeOther && bytes.IndexByte(tok, '\\') >= 0 {
		t = typeOf(Unquote(tok)) // a type spelled with escapes
	}
	return t
}

// typeOf is the frame type named s (unescaped).
func typeOf(s []byte) FrameType {
	for t, name := range typeNames[1:] {
		if string(s) == name {
			return FrameType(t + 1)
		}
	}
	return TypeOther
}

// Unquote returns the decoded contents of a JSON string token: a sub-slice
// of tok when it holds no escapes (the usual case), else a fresh slice.
func Unquote(tok []byte) []byte {
	s := tok[1 : len(tok)-1]
	if bytes.IndexByte(s, '\\') < 0 {
		return s
	}
	var dec string
	if json.Unmarshal(tok, &dec) != nil {
		return s
	}
	return []byte(dec)
}
