package codec

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// AppendString tests 8 bytes at a time: every ASCII byte, at every place
// in and around a word, comes back whole (a control character, '"' or '\\'
// left unescaped would not decode).
func TestAppendStringEscapesEveryByteWherever(t *testing.T) {
	for c := 0; c < 0x80; c++ {
		for pos := range 17 {
			b := []byte(strings.Repeat("a", 17))
			b[pos] = byte(c)
			out := AppendString(nil, b)
			var back string
			if err := json.Unmarshal(out, &back); err != nil || back != string(b) {
				t.Fatalf("byte %#x at %d: %s decodes to %q, %v", c, pos, out, back, err)
			}
			if string(AppendString(nil, string(b))) != string(out) {
				t.Fatalf("byte %#x at %d: the string and []byte forms differ", c, pos)
			}
		}
	}
	if got := string(AppendString([]byte("x"), "é\u2028<>&\x7f")); got != "x\"é\u2028<>&\x7f\"" {
		t.Fatalf("non-ASCII, DEL and HTML characters are written as they are: %s", got)
	}
}

// A string that is not UTF-8 is told by its first bad byte and where it is:
// an index of the Go string being encoded, an offset of the input being
// decoded.
func TestInvalidUTF8SaysWhere(t *testing.T) {
	_, encErr := Marshal(map[string]any{"k": "ab\xffc"})
	_, decErr := Unmarshal([]byte("[1, \"a\\n\xfe\"]"))
	for _, c := range []struct {
		err  error
		want string
	}{
		{encErr, `codec: value["k"]: string is not valid UTF-8 (byte 0xff at index 2)`},
		{decErr, `codec: value[1]: string is not valid UTF-8 (byte 0xfe at offset 8)`},
	} {
		if c.err == nil || c.err.Error() != c.want || !errors.Is(c.err, ErrInvalidUTF8) {
			t.Errorf("error %v, want %s (ErrInvalidUTF8)", c.err, c.want)
		}
	}
}
