package codec

import (
	"encoding/json"
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
