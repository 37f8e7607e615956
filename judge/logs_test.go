package judge

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// jsonStringLen never undercounts what encoding/json writes, HTML escaping
// on or off, so the result's log budget holds however it is encoded.
func TestJSONStringLenBoundsTheEncoding(t *testing.T) {
	for _, s := range []string{"", "plain", "<>&", "\"\\\n\r\t", "\x00\x01\b\f\x1f", "\u2028\u2029", "é€😀",
		"\xff\xfe bad", strings.Repeat("<a&b>", 100)} {
		for _, html := range []bool{true, false} {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(html)
			enc.Encode(s)
			if got, n := jsonStringLen(s), b.Len()-1; got < n {
				t.Errorf("jsonStringLen(%q) = %d, encoding/json wrote %d (html %v)", s, got, n, html)
			}
		}
	}
}

// Text that costs more to encode than to send (each `<` is six bytes in the
// result) is kept only up to MaxResultLogBytes as encoded; the rest counts
// as dropped.
func TestLogKeeperBoundsTheEncodedResult(t *testing.T) {
	var k logKeeper
	frame := []byte(strings.Repeat("<", 60<<10))
	for range 64 {
		k.add("stdout", frame)
	}
	b, err := json.MarshalIndent(Logs{Kept: k.kept, Dropped: k.dropped}, "    ", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > MaxResultLogBytes {
		t.Errorf("logs encode to %d bytes, over %d", len(b), MaxResultLogBytes)
	}
	if len(k.kept) == 0 || k.dropped != 64-len(k.kept) {
		t.Errorf("kept %d, dropped %d of 64", len(k.kept), k.dropped)
	}
}
