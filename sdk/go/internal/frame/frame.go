// Package frame holds what the Go evaluator and solution SDKs share: the
// frame shape of the dual protocol (see docs/protocol/judge.md), id generation and
// frame encoding. It is internal to sdk/go.
package frame

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	"github.com/tether-dev/tether/codec"
)

// Frame is any decoded frame; fields a type does not use are empty.
// Args and Value are decoded transferable values (package codec).
type Frame struct {
	Type      string
	ID        string
	Fn        string
	Name      string
	Args      any // a []any when the frame is well-formed
	Value     any
	Code      string
	Message   string
	Trace     string
	Stream    string
	Data      string
	TimeoutMs int64
}

// ErrNotFrame: the line is not a JSON object with a string "type".
var ErrNotFrame = errors.New("frame: not a frame")

// Parse decodes one line with the codec's strict decoder (one pass: the
// frame and its args or value together). A line that is not a valid
// transferable JSON object with a string "type" gives an error wrapping
// ErrNotFrame, so the caller can skip it.
func Parse(line []byte) (Frame, error) {
	if f, ok := parseEnvelope(line); ok {
		return f, nil
	}
	return parseWhole(line)
}

// parseWhole is Parse the plain way: the whole line through the codec into
// a map. It is the reference parseEnvelope must agree with, and the path
// for every line parseEnvelope declines (including every invalid one, so
// errors are always the codec's).
func parseWhole(line []byte) (Frame, error) {
	v, err := codec.Unmarshal(line)
	if err != nil {
		return Frame{}, fmt.Errorf("%w: %w", ErrNotFrame, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return Frame{}, fmt.Errorf("%w: not an object", ErrNotFrame)
	}
	f := Frame{Args: m["args"], Value: m["value"]}
	if f.Type, ok = m["type"].(string); !ok || f.Type == "" {
		return Frame{}, fmt.Errorf("%w: no type", ErrNotFrame)
	}
	str := func(key string) string { s, _ := m[key].(string); return s }
	f.ID, f.Fn, f.Name, f.Code = str("id"), str("fn"), str("name"), str("code")
	f.Message, f.Trace, f.Stream, f.Data = str("message"), str("trace"), str("stream"), str("data")
	f.TimeoutMs, _ = m["timeout_ms"].(int64)
	return f, nil
}

// NewID returns a uuid4 as 32 hex digits, like Python's uuid.uuid4().hex.
// Ids only need to be unique among the calls in flight (docs/protocol/judge.md accepts any
// non-empty string), not unpredictable, so the bits come from math/rand/v2's
// per-thread generator: no system call and no lock per call.
func NewID() string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var out [32]byte
	hex.Encode(out[:], b[:])
	return string(out[:])
}

// appendString appends s as a JSON string, as the codec's one string
// encoder writes it; invalid UTF-8 (a panic's text, say) is mended first,
// each bad run as one U+FFFD.
func appendString(dst []byte, s string) []byte {
	if plainASCII(s) { // ids, names, codes: nothing to escape or mend (about twice as fast as the general path)
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return codec.AppendString(dst, s)
}

// plainASCII reports whether s is printable ASCII without '"' and '\\',
// the strings the codec writes as they are between quotes.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// Error encodes an error frame; an empty trace is left out.
func Error(id, code, message, trace string) []byte {
	b := make([]byte, 0, 48+len(id)+len(code)+len(message)+len(trace))
	b = append(b, `{"type":"error","id":`...)
	b = appendString(b, id)
	b = append(b, `,"code":`...)
	b = appendString(b, code)
	b = append(b, `,"message":`...)
	b = appendString(b, message)
	if trace != "" {
		b = append(b, `,"trace":`...)
		b = appendString(b, trace)
	}
	return append(b, '}')
}

// CapReg encodes a cap_reg frame; timeoutMs <= 0 leaves timeout_ms out.
func CapReg(name string, timeoutMs int64) []byte {
	b := append([]byte(`{"type":"cap_reg","name":`), appendString(nil, name)...)
	if timeoutMs > 0 {
		b = fmt.Appendf(b, `,"timeout_ms":%d`, timeoutMs)
	}
	return append(b, '}')
}

// Log encodes a log frame.
func Log(stream, data string) []byte {
	b := append([]byte(`{"type":"log","stream":`), appendString(nil, stream)...)
	b = append(b, `,"data":`...)
	b = appendString(b, data)
	return append(b, '}')
}

// Ready is the solution's first frame.
var Ready = []byte(`{"type":"ready"}`)
