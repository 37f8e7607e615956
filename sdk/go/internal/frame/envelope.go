package frame

import (
	"bytes"
	"unicode/utf8"

	"github.com/tether-dev/tether/codec"
)

// envelopeKeys are the members a frame may have, in bit order for the
// duplicate check.
var envelopeKeys = [...]string{"type", "id", "fn", "name", "args", "value", "code",
	"message", "trace", "stream", "data", "timeout_ms"}

// parseEnvelope is the fast path of Parse: it walks the frame's top-level
// object itself and gives only args, value and timeout_ms to the codec, so
// the envelope costs no map and no per-member boxing. It handles the frames
// the SDKs and the judge write: known keys, each once, with plain string
// values for the string members. It reports false for anything else,
// valid or not, and Parse then decodes the whole line with the codec; so
// when it reports true its Frame is the one parseWhole would return
// (FuzzParseEnvelope checks this).
func parseEnvelope(line []byte) (Frame, bool) {
	var f Frame
	var seen uint16
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return f, false
	}
	i++
	for {
		i = skipSpace(line, i)
		key, next, ok := plainString(line, i)
		if !ok {
			return f, false
		}
		k := keyIndex(key)
		if k < 0 || seen&(1<<k) != 0 {
			return f, false
		}
		seen |= 1 << k
		i = skipSpace(line, next)
		if i >= len(line) || line[i] != ':' {
			return f, false
		}
		i = skipSpace(line, i+1)
		if !f.setMember(k, line, &i) {
			return f, false
		}
		i = skipSpace(line, i)
		if i >= len(line) {
			return f, false
		}
		if line[i] == ',' {
			i++
			continue
		}
		if line[i] != '}' || skipSpace(line, i+1) != len(line) {
			return f, false
		}
		return f, f.Type != ""
	}
}

// setMember decodes the value at *i for key envelopeKeys[k] and moves *i
// past it.
func (f *Frame) setMember(k int, line []byte, i *int) bool {
	switch key := envelopeKeys[k]; key {
	case "args", "value", "timeout_ms":
		end, levels, ok := skipValue(line, *i)
		if !ok || levels >= codec.MaxDepth { // nested one level less than in the line: let the codec judge depth
			return false
		}
		v, small := smallValue(line[*i:end])
		if !small {
			var err error
			if v, err = codec.Unmarshal(line[*i:end]); err != nil {
				return false
			}
		}
		*i = end
		switch key {
		case "args":
			f.Args = v
		case "value":
			f.Value = v
		default:
			f.TimeoutMs, _ = v.(int64)
		}
		return true
	default:
		s, next, ok := plainString(line, *i)
		if !ok {
			return false // escapes, or not a string: the codec decides
		}
		*i = next
		if key == "type" {
			f.Type = internType(s)
			return true
		}
		str := string(s)
		switch key {
		case "id":
			f.ID = str
		case "fn":
			f.Fn = str
		case "name":
			f.Name = str
		case "code":
			f.Code = str
		case "message":
			f.Message = str
		case "trace":
			f.Trace = str
		case "stream":
			f.Stream = str
		case "data":
			f.Data = str
		}
		return true
	}
}

// keyIndex is the index of key in envelopeKeys, or -1. A switch, not a
// loop over envelopeKeys: the compiler dispatches on length first, so most
// keys cost one comparison (TestKeyIndexMatchesEnvelopeKeys keeps the two
// in step).
func keyIndex(key []byte) int {
	switch string(key) {
	case "type":
		return 0
	case "id":
		return 1
	case "fn":
		return 2
	case "name":
		return 3
	case "args":
		return 4
	case "value":
		return 5
	case "code":
		return 6
	case "message":
		return 7
	case "trace":
		return 8
	case "stream":
		return 9
	case "data":
		return 10
	case "timeout_ms":
		return 11
	}
	return -1
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// plainString reads a JSON string at b[i] that has no escapes: its
// contents (valid UTF-8, no control characters) and the offset after it.
func plainString(b []byte, i int) (s []byte, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, false
	}
	j := bytes.IndexByte(b[i+1:], '"')
	if j < 0 {
		return nil, i, false
	}
	s = b[i+1 : i+1+j]
	ascii := true
	for _, c := range s {
		if c == '\\' || c < 0x20 { // an escape (the quote found may be escaped) or a raw control character
			return nil, i, false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	return s, i + 2 + j, ascii || utf8.Valid(s)
}

// skipValue finds the end of the JSON value starting at b[i] without
// validating it (the codec does that next), and how deeply its lists and
// maps nest.
func skipValue(b []byte, i int) (end, levels int, ok bool) {
	depth := 0
	for j := i; j < len(b); j++ {
		switch c := b[j]; c {
		case '"':
			for j++; j < len(b) && b[j] != '"'; j++ {
				if b[j] == '\\' {
					j++
				}
			}
			if j >= len(b) {
				return 0, 0, false
			}
			if depth == 0 {
				return j + 1, levels, true
			}
		case '[', '{':
			depth++
			levels = max(levels, depth)
		case ']', '}':
			if depth == 0 { // a scalar ended by its container
				return j, levels, j > i
			}
			if depth--; depth == 0 {
				return j + 1, levels, true
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return j, levels, j > i
			}
		}
	}
	if depth == 0 && len(b) > i {
		return len(b), levels, true
	}
	return 0, 0, false
}
