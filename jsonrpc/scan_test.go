package jsonrpc

import (
	"encoding/json"
	"testing"
)

// A line is JSON exactly when encoding/json says so, and encoding/json does
// not require strings to be UTF-8: such a request is answered, not refused
// with -32700.
func TestScanAcceptsInvalidUTF8InStrings(t *testing.T) {
	for _, s := range []string{"\"\xff\"", "{\"jsonrpc\":\"2.0\",\"method\":\"m\xed\xa0\x80\",\"params\":[\"\xe2\x82\"],\"id\":1}"} {
		if !json.Valid([]byte(s)) {
			t.Fatalf("json.Valid(%q) = false; the case no longer pins the rule", s)
		}
		if !validJSON([]byte(s)) {
			t.Errorf("validJSON(%q) = false, want true as encoding/json", s)
		}
		if kind, _ := parseLine([]byte(s), nil); kind != lineSingle {
			t.Errorf("parseLine(%q) kind %d, want lineSingle", s, kind)
		}
	}
	if validJSON([]byte("\xff")) {
		t.Error("a non-ASCII byte outside a string accepted")
	}
}
