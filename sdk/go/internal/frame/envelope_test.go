package frame

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tether-dev/tether/codec"
)

// envelopeSamples are lines for the agreement test and the fuzz corpus:
// the frames the SDKs write, and lines the fast path must decline or get
// exactly right (escapes, white space, duplicates, unknown keys, bad JSON).
var envelopeSamples = []string{
	string(sampleResult), string(sampleCall),
	`{"type":"call","id":"a","fn":"f","args":[1,"x",{"k":[true,null]}],"timeout_ms":250}`,
	`{"type":"error","id":"e","code":"Exception","message":"boom\n","trace":"t"}`,
	`{"type":"error","id":"e","code":"Exception","message":"héllo ✓"}`,
	` { "type" : "result" , "id" : "r" , "value" : -1.5e3 } `,
	`{"type":"result","id":"r","value":"a\"b"}`,
	`{"type":"result","id":"r","value":{"__bytes__":"aGk="}}`,
	`{"type":"result","id":"r","value":123456789012345678901234567890}`,
	`{"type":"result","id":"r","value":}`,
	`{"type":"result","id":"r","value":[1,2}`,
	`{"type":"result","id":"r","value":NaN}`,
	`{"type":"result","id":"r","value":1,"value":2}`,
	`{"type":"result","id":"r","extra":1}`,
	`{"type":"result","id":"r"} x`,
	`{"type":"re\u0073ult","id":"r"}`,
	`{"type":"","id":"r"}`,
	`{"type":3}`,
	"{\"type\":\"log\",\"stream\":\"stdout\",\"data\":\"bad \xff utf8\"}",
	`{"type":"call","id":"c","fn":"f","args":[],"timeout_ms":1.5}`,
	`{"type":"call","id":"c","fn":"f","args":[],"timeout_ms":"x"}`,
	`{"type":"ready"}`, `{}`, `[]`, ``, `{"type":"ready"`, `{"type":"ready",}`,
	// small values (the fast path without the codec) and their near misses
	`{"type":"call","id":"c","fn":"f","args":[-0,0,-12,123456789012345678]}`,
	`{"type":"call","id":"c","fn":"f","args":[1234567890123456789,-9223372036854775808]}`,
	`{"type":"call","id":"c","fn":"f","args":[01]}`, `{"type":"call","id":"c","fn":"f","args":[1,]}`,
	`{"type":"call","id":"c","fn":"f","args":[,1]}`, `{"type":"call","id":"c","fn":"f","args":[1 ,2]}`,
	`{"type":"call","id":"c","fn":"f","args":[-]}`, `{"type":"call","id":"c","fn":"f","args":[1.5,1e3]}`,
	`{"type":"call","id":"c","fn":"f","args":[1,[2]]}`, `{"type":"call","id":"c","fn":"f","args":[1]]}`,
	`{"type":"result","id":"r","value":-7}`, `{"type":"result","id":"r","value":1E2}`,
	`{"type":"result","id":"r","value":00}`, `{"type":"result","id":"r","value":-}`,
	`{"type":"mystery","id":"r"}`,
	`{"type":"result","id":"r","value":` + strings.Repeat("[", 511) + strings.Repeat("]", 511) + `}`,
	`{"type":"result","id":"r","value":` + strings.Repeat("[", 512) + strings.Repeat("]", 512) + `}`,
}

// checkAgreement fails when the fast path accepts a line and its frame
// differs from the codec's, or accepts a line the codec refuses.
func checkAgreement(t *testing.T, line []byte) (fast bool) {
	t.Helper()
	got, ok := parseEnvelope(line)
	want, err := parseWhole(line)
	if ok && err != nil {
		t.Fatalf("parseEnvelope accepted %q, which the codec refuses: %v", line, err)
	}
	if ok && !reflect.DeepEqual(got, want) {
		t.Fatalf("parseEnvelope(%q) = %#v, codec gives %#v", line, got, want)
	}
	return ok
}

func TestEnvelopeAgreesWithCodec(t *testing.T) {
	fast := 0
	for _, s := range envelopeSamples {
		if checkAgreement(t, []byte(s)) {
			fast++
		}
	}
	// The SDKs' own frames must take the fast path, or it is not a fast path.
	for _, line := range [][]byte{sampleResult, sampleCall, must(AppendRequest(nil, "call", "a", "f", []any{1}, 5)),
		must(AppendResult(nil, "r", map[string]any{"k": []any{1, 2.5, "s"}})), Error("e", codec.CodeException, "msg", "trace"),
		must(AppendRequest(nil, "capability", "c", "llm", []any{"q"}, 0)), Log("stderr", "line"), Ready} {
		if !checkAgreement(t, line) {
			t.Errorf("parseEnvelope declined the SDK frame %s", line)
		}
	}
	if fast == 0 || fast == len(envelopeSamples) {
		t.Fatalf("%d of %d samples took the fast path: the samples no longer test both paths", fast, len(envelopeSamples))
	}
}

func FuzzParseEnvelope(f *testing.F) {
	for _, s := range envelopeSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkAgreement(t, line) })
}
