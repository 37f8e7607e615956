package frame

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/tether-dev/tether/codec"
	"github.com/tether-dev/tether/internal/jsonscan"
)

// Undecodable is what can still be read from a line Parse refused because
// its values break the codec (NaN, a duplicate key, invalid base64 bytes,
// ...): the frame's type and id, and why it was refused.
type Undecodable struct {
	Type string
	ID   string
	// Message is the codec's reason with its path rooted at the frame's
	// member: `value: NaN is not transferable`,
	// `args[1]["a"]: duplicate key at offset 50`.
	Message string
}

// Rejected is the error frame that fails the call waiting for u's id.
func (u Undecodable) Rejected() Frame {
	return Frame{Type: "error", ID: u.ID, Code: codec.CodeRejected, Message: u.Message}
}

// lenient is the syntax Inspect accepts: Python's json module, which a
// Python peer writes with by default, so NaN, Infinity and -Infinity too.
// UTF-8 is not checked (only the type and id must decode). A line the codec
// refused for its nesting has its containers skipped by skipContainer, at
// any depth; any other line must be valid JSON throughout, or it is no frame
// at all (plain text, ignored as the protocol says).
var lenient = jsonscan.Syntax{NonFinite: true, MaxDepth: codec.MaxDepth}

// Inspect recovers the type and id of line, which Parse refused with cause,
// so that the caller can answer Rejected instead of leaving the sender to
// time out. It reports false unless line is one JSON object (non-standard
// NaN / Infinity / -Infinity tokens and duplicate keys allowed: the last
// "type" and "id" count, as in Python's json.loads) whose type is a string
// and whose id a non-empty string, both valid for the codec.
func Inspect(line []byte, cause error) (Undecodable, bool) {
	var typ, id []byte // the raw JSON of the last "type" and "id" members
	tooDeep := errors.Is(cause, codec.ErrTooDeep)
	end := members(line, jsonscan.SkipSpace(line, 0), tooDeep, func(key, value []byte) {
		switch memberName(key) {
		case "type":
			typ = value
		case "id":
			id = value
		}
	})
	if end < 0 || jsonscan.SkipSpace(line, end) != len(line) {
		return Undecodable{}, false
	}
	u := Undecodable{Message: rejectMessage(cause)}
	var ok bool
	if u.Type, ok = stringValue(typ); !ok {
		return Undecodable{}, false
	}
	if u.ID, ok = stringValue(id); !ok || u.ID == "" {
		return Undecodable{}, false
	}
	return u, true
}

// members calls member with each member of the object at data[i] (key
// with its quotes, value) and returns the index after its '}', or -1. With
// tooDeep, unlike jsonscan's Members, it does not recurse into values: a
// frame refused for its nesting (deeper than any limit a recursive scan could have) still
// shows its type and id.
func members(data []byte, i int, tooDeep bool, member func(key, value []byte)) int {
	if i >= len(data) || data[i] != '{' {
		return -1
	}
	i = jsonscan.SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1
	}
	for {
		key := i
		if i = lenient.SkipString(data, i); i < 0 {
			return -1
		}
		keyEnd := i
		if i = jsonscan.SkipSpace(data, i); i >= len(data) || data[i] != ':' {
			return -1
		}
		value := jsonscan.SkipSpace(data, i+1)
		if tooDeep && value < len(data) && (data[value] == '[' || data[value] == '{') {
			i = skipContainer(data, value)
		} else {
			i = lenient.SkipValue(data, value, 0)
		}
		if i < 0 {
			return -1
		}
		member(data[key:keyEnd], data[value:i])
		if i = jsonscan.SkipSpace(data, i); i >= len(data) {
			return -1
		}
		switch data[i] {
		case ',':
			i = jsonscan.SkipSpace(data, i+1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

// skipContainer returns the index after the array or object that opens at
// data[i], or -1. It keeps a stack of the open brackets, not a recursion,
// and checks only that strings end and brackets match: the codec has
// already said what is wrong inside.
func skipContainer(data []byte, i int) int {
	var open []byte
	for i < len(data) {
		switch c := data[i]; c {
		case '"':
			if i = lenient.SkipString(data, i); i < 0 {
				return -1
			}
			continue
		case '[', '{':
			open = append(open, c)
		case ']', '}':
			if len(open) == 0 || open[len(open)-1] != c-2 { // '[' + 2 == ']', '{' + 2 == '}'
				return -1
			}
			if open = open[:len(open)-1]; len(open) == 0 {
				return i + 1
			}
		}
		i++
	}
	return -1
}

// memberName decodes a member's key (a JSON string, quotes included); ""
// if it does not decode.
func memberName(key []byte) string {
	if bytes.IndexByte(key, '\\') < 0 {
		return string(key[1 : len(key)-1])
	}
	s, _ := stringValue(key)
	return s
}

// stringValue decodes raw JSON that must be a string the codec accepts
// (valid UTF-8, no lone surrogate), so that an answer carries the id
// exactly as sent.
func stringValue(raw []byte) (string, bool) {
	if raw == nil {
		return "", false
	}
	v, err := codec.Unmarshal(raw)
	s, ok := v.(string)
	return s, err == nil && ok
}

// rejectMessage is the codec's error in cause without the "codec: " prefix
// and with the path rooted at the frame's member instead of the whole line:
// value["args"][0] becomes args[0].
func rejectMessage(cause error) string {
	var pe *codec.PathError
	if !errors.As(cause, &pe) {
		return strings.TrimPrefix(cause.Error(), ErrNotFrame.Error()+": ")
	}
	reason := pe.Err.Error()
	rest, ok := strings.CutPrefix(pe.Path, "value[")
	if !ok {
		return reason // the line as a whole
	}
	end := jsonscan.Syntax{}.SkipString([]byte(rest), 0)
	var member string
	if end < 0 || end >= len(rest) || rest[end] != ']' || json.Unmarshal([]byte(rest[:end]), &member) != nil {
		return pe.Path + ": " + reason
	}
	return member + rest[end+1:] + ": " + reason
}
