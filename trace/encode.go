package trace

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/tether-dev/tether/codec"
)

// maxPayload is the most of one line a trace keeps; a longer line is kept
// as its head (cut). A frame is at most 1 MiB (the judge's frame cap), so
// only lines the relay does not forward whole are ever cut.
const maxPayload = 1 << 20

// bytesHead is how much of a __bytes__ value's base64 a trace keeps: 48
// bytes of data. Shorter values are kept whole.
const bytesHead = 64

var bytesKey = []byte(`"__bytes__"`)

var replacement = []byte("\uFFFD")

// appendText appends s as a JSON string. Bytes that are not UTF-8 become
// U+FFFD (as encoding/json writes them), so any line yields valid JSON.
func appendText(dst, s []byte) []byte {
	if !utf8.Valid(s) {
		s = bytes.ToValidUTF8(s, replacement)
	}
	return codec.AppendString(dst, s)
}

// appendFrame appends a frame line as the "frame" member's value, or
// reports false when it must be kept as text: a frame holding Python's
// NaN or Infinity (not JSON), or one whose __bytes__ values cannot be
// summarised.
func appendFrame(dst, line []byte) ([]byte, bool) {
	nonFinite, hasBytes := scanFrame(line)
	if nonFinite {
		return dst, false
	}
	if !hasBytes {
		return append(dst, line...), true
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return dst, false
	}
	b, err := json.Marshal(summariseBytes(v))
	if err != nil {
		return dst, false
	}
	return append(dst, b...), true
}

// scanFrame says whether line holds NaN or Infinity, and whether it holds
// "__bytes__", in one pass that tests 8 bytes at a time for the bytes
// they start with ('N', 'I', '_'), which most frames never hold.
func scanFrame(line []byte) (nonFinite, hasBytes bool) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	hasByte := func(x uint64, c byte) uint64 { v := x ^ (ones * uint64(c)); return (v - ones) &^ v & highs }
	at := func(j int) bool { // reports a NaN or Infinity at j
		switch line[j] {
		case 'N':
			return bytes.HasPrefix(line[j:], nan)
		case 'I':
			return bytes.HasPrefix(line[j:], infinity)
		case '_':
			if j > 0 && line[j-1] == '"' && bytes.HasPrefix(line[j:], bytesKey[1:]) {
				hasBytes = true
			}
		}
		return false
	}
	i := 0
	for ; i+8 <= len(line); i += 8 {
		if x := binary.LittleEndian.Uint64(line[i:]); hasByte(x, 'N')|hasByte(x, 'I')|hasByte(x, '_') == 0 {
			continue
		}
		for j := i; j < i+8; j++ {
			if at(j) {
				return true, hasBytes
			}
		}
	}
	for ; i < len(line); i++ {
		if at(i) {
			return true, hasBytes
		}
	}
	return false, hasBytes
}

var nan, infinity = []byte("NaN"), []byte("Infinity")

// summariseBytes replaces each {"__bytes__": B} whose base64 B is longer
// than bytesHead by {"__bytes__": {"size": N, "head": B[:bytesHead]}}.
func summariseBytes(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 1 {
			if s, ok := x["__bytes__"].(string); ok {
				if len(s) <= bytesHead {
					return x
				}
				return map[string]any{"__bytes__": map[string]any{"size": base64Size(s), "head": s[:bytesHead]}}
			}
		}
		for k, e := range x {
			x[k] = summariseBytes(e)
		}
	case []any:
		for i, e := range x {
			x[i] = summariseBytes(e)
		}
	}
	return v
}

// base64Size is the number of bytes standard base64 s decodes to.
func base64Size(s string) int {
	n := len(s) / 4 * 3
	for i := len(s) - 1; i >= 0 && s[i] == '='; i-- {
		n--
	}
	return n
}

func appendInt(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }
