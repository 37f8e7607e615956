package trace

import (
	"bytes"
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
// "__bytes__". It looks for the bytes those start with ('N', 'I', '_'),
// which most frames never hold, with bytes.IndexByte: a vector scan that
// costs less than one pass testing each byte here (BenchmarkScanFrame).
func scanFrame(line []byte) (nonFinite, hasBytes bool) {
	if found(line, 'N', nan) || found(line, 'I', infinity) {
		return true, false
	}
	for i := 0; ; i++ {
		j := bytes.IndexByte(line[i:], '_')
		if j < 0 {
			return false, false
		}
		if i += j; i > 0 && line[i-1] == '"' && bytes.HasPrefix(line[i:], bytesKey[1:]) {
			return false, true
		}
	}
}

// found reports whether word, which starts with c, is in line.
func found(line []byte, c byte, word []byte) bool {
	for i := 0; ; i++ {
		j := bytes.IndexByte(line[i:], c)
		if j < 0 {
			return false
		}
		if i += j; bytes.HasPrefix(line[i:], word) {
			return true
		}
	}
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
