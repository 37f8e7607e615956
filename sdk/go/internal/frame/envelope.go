package frame

import (
	"unicode/utf8"

	"github.com/tether-dev/tether/codec"
	"github.com/tether-dev/tether/internal/jsonscan"
)

// envelopeKeys are the members a frame may have, in bit order for the
// duplicate check.
var envelopeKeys = [...]string{"type", "id", "fn", "name", "args", "value", "code",
	"message", "trace", "stream", "data", "timeout_ms"}

// parseEnvelope is the fast path of Parse: it walks the frame's top-level
// object with the project's one member walker (internal/jsonscan) and gives
// only args, value and timeout_ms to the codec, so the envelope costs no map
// and no per-member boxing. It handles the frames the SDKs and the judge
// write: known keys, each once, with plain string values for the string
// members. It reports false for anything else, valid or not, and Parse then
// decodes the whole line with the codec; so when it reports true its Frame
// is the one parseWhole would return (FuzzParseEnvelope checks this).
func parseEnvelope(line []byte) (Frame, bool) {
	var f Frame
	var seen uint16
	ok := true
	end := envelopeSyntax.Members(line, jsonscan.SkipSpace(line, 0), func(key, value []byte) {
		k := keyIndex(key[1 : len(key)-1]) // an escaped key matches none: the codec decides
		if !ok || k < 0 || seen&(1<<k) != 0 {
			ok = false
			return
		}
		seen |= 1 << k
		ok = f.setMember(k, value)
	})
	return f, ok && end >= 0 && jsonscan.SkipSpace(line, end) == len(line) && f.Type != ""
}

// envelopeSyntax is the grammar of the fast path. A value nested as deeply
// as the codec allows at the top is declined (its depth is one more inside
// the frame), so the codec judges depth; so are NaN and ±Infinity.
var envelopeSyntax = jsonscan.Syntax{MaxDepth: codec.MaxDepth}

// setMember decodes value, the member of key envelopeKeys[k].
func (f *Frame) setMember(k int, value []byte) bool {
	switch key := envelopeKeys[k]; key {
	case "args", "value", "timeout_ms":
		v, small := smallValue(value)
		if !small {
			var err error
			if v, err = codec.Unmarshal(value); err != nil {
				return false
			}
		}
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
		s, ok := plainString(value)
		if !ok {
			return false // escapes, or not a string: the codec decides
		}
		if key == "type" {
			f.Type = internType(s)
			return true
		}
		*f.stringMember(k) = string(s)
		return true
	}
}

// stringMember is the field of envelopeKeys[k], a string member other
// than type.
func (f *Frame) stringMember(k int) *string {
	return [...]*string{1: &f.ID, 2: &f.Fn, 3: &f.Name, 6: &f.Code, 7: &f.Message,
		8: &f.Trace, 9: &f.Stream, 10: &f.Data}[k]
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

// plainString is the contents of the JSON string token tok when it has no
// escapes: valid UTF-8 with no escape (the walker has checked the rest).
func plainString(tok []byte) ([]byte, bool) {
	if len(tok) < 2 || tok[0] != '"' {
		return nil, false
	}
	s := tok[1 : len(tok)-1]
	ascii := true
	for _, c := range s {
		if c == '\\' {
			return nil, false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	return s, ascii || utf8.Valid(s)
}
