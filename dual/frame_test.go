package dual

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tether-dev/tether/codec"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		name string
		line string
		kind LineKind
		typ  FrameType
		trim string
	}{
		{"marker", "---RESULT---", Marker, 0, "---RESULT---"},
		{"marker trimmed", " \t---RESULT---\r\n", Marker, 0, "---RESULT---"},
		{"marker unicode space", "\u00a0---RESULT---\u2003", Marker, 0, "---RESULT---"},
		{"marker prefix is text", "---RESULT--- x", Text, 0, "---RESULT--- x"},
		{"plain text", "  hello  ", Text, 0, "hello"},
		{"empty", "   ", Text, 0, ""},
		{"call", ` {"type":"call","id":"a","fn":"f","args":[1]} `, Framed, TypeCall, `{"type":"call","id":"a","fn":"f","args":[1]}`},
		{"escaped type", `{"type":"c\u0061ll"}`, Framed, TypeCall, `{"type":"c\u0061ll"}`},
		{"unknown type", `{"type":"hello"}`, Framed, TypeOther, `{"type":"hello"}`},
		{"no type", `{"status":"Accepted"}`, Text, 0, `{"status":"Accepted"}`},
		{"number type", `{"type":5}`, Text, 0, `{"type":5}`},
		{"null type", `{"type":null}`, Text, 0, `{"type":null}`},
		{"nested type only", `{"a":{"type":"call"}}`, Text, 0, `{"a":{"type":"call"}}`},
		{"broken json", `{"type":"call","id":"a"`, Text, 0, `{"type":"call","id":"a"`},
		{"trailing garbage", `{"type":"call"} x`, Text, 0, `{"type":"call"} x`},
		{"two objects", `{"type":"call"}{"type":"call"}`, Text, 0, `{"type":"call"}{"type":"call"}`},
		{"array", `[{"type":"call"}]`, Text, 0, `[{"type":"call"}]`},
		{"invalid utf8", "{\"type\":\"log\",\"data\":\"\xff\"}", Text, 0, "{\"type\":\"log\",\"data\":\"\xff\"}"},
		{"control char in string", "{\"type\":\"log\",\"data\":\"a\x01\"}", Text, 0, "{\"type\":\"log\",\"data\":\"a\x01\"}"},
		{"bad escape", `{"type":"log","data":"\x"}`, Text, 0, `{"type":"log","data":"\x"}`},
		{"bad number", `{"type":"call","timeout_ms":01}`, Text, 0, `{"type":"call","timeout_ms":01}`},
		// Python's non-finite tokens make a frame (routed; the receiving SDK rejects it).
		{"NaN", `{"type":"call","args":[NaN]}`, Framed, TypeCall, `{"type":"call","args":[NaN]}`},
		{"Infinity", `{"type":"result","id":"a","value":[Infinity,-Infinity]}`, Framed, TypeResult, `{"type":"result","id":"a","value":[Infinity,-Infinity]}`},
		{"lower-case nan", `{"type":"result","id":"a","value":nan}`, Text, 0, `{"type":"result","id":"a","value":nan}`},
		{"last type wins", `{"type":"call","type":"result"}`, Framed, TypeResult, `{"type":"call","type":"result"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var f Frame
			kind, trimmed := Classify([]byte(c.line), &f)
			if kind != c.kind || string(trimmed) != c.trim {
				t.Fatalf("Classify(%q) = %v %q, want %v %q", c.line, kind, trimmed, c.kind, c.trim)
			}
			if kind == Framed && f.Type != c.typ {
				t.Fatalf("type = %v, want %v", f.Type, c.typ)
			}
		})
	}
}

func TestClassifyFields(t *testing.T) {
	var f Frame
	line := `{"type":"capability","id":"x\"y","name":"llm","args":[{"id":"inner"}],"timeout_ms":250,"stream":"stderr","data":"d","fn":"f"}`
	if k, _ := Classify([]byte(line), &f); k != Framed {
		t.Fatal("not a frame")
	}
	if string(f.ID) != `"x\"y"` || string(Unquote(f.ID)) != `x"y` || string(f.Name) != `"llm"` ||
		f.TimeoutMS != 250 || string(f.Stream) != `"stderr"` || string(f.Data) != `"d"` || string(f.Fn) != `"f"` {
		t.Fatalf("fields: %+v", f)
	}
	for _, c := range []struct {
		v    string
		want int64
	}{{"5", 5}, {"0", 0}, {"-3", 0}, {"1.5", 0}, {"1e3", 0}, {`"5"`, 0}, {"null", 0},
		{"99999999999999999999999", int64(maxTimeout / 1e6)}} {
		Classify([]byte(`{"type":"call","timeout_ms":`+c.v+`}`), &f)
		if f.TimeoutMS != c.want || !f.HasTimeout {
			t.Errorf("timeout_ms %s → %d, want %d", c.v, f.TimeoutMS, c.want)
		}
	}
	Classify([]byte(`{"type":"result","id":7}`), &f)
	if f.ID != nil || !f.HasID {
		t.Fatalf("numeric id: ID=%q HasID=%v", f.ID, f.HasID)
	}
}

func TestClassifyDepth(t *testing.T) {
	var f Frame
	deep := func(n int) string {
		return `{"type":"call","args":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`
	}
	if k, _ := Classify([]byte(deep(maxDepth-1)), &f); k != Framed {
		t.Fatalf("depth %d rejected", maxDepth)
	}
	if k, _ := Classify([]byte(deep(maxDepth)), &f); k != Text {
		t.Fatalf("depth %d accepted", maxDepth+1)
	}
}

func TestScanHead(t *testing.T) {
	var f Frame
	if !scanHead([]byte(`{"type":"call","id":"abc","args":["xxxxxxx`), &f) || f.Type != TypeCall || string(f.ID) != `"abc"` {
		t.Fatalf("head with type and id: %+v", f)
	}
	if scanHead([]byte(`{"type":"call","args":["xxxx`), &f) {
		t.Fatal("head without id accepted")
	}
	if scanHead([]byte(`hello {"type":"call","id":"a"}`), &f) {
		t.Fatal("text accepted")
	}
	if scanHead([]byte(`{"type":"call","id":"ab`), &f) {
		t.Fatal("cut id accepted")
	}
}

func TestAppendError(t *testing.T) {
	got := string(appendError(nil, []byte(`"id1"`), codec.CodeCallTimeout, msgCallTimeout))
	if want := `{"type":"error","id":"id1","code":"CallTimeout","message":"call timeout"}`; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
	got = string(appendError(nil, []byte(`"i"`), codec.CodeSystemError, "a\"b\\c\n\x01\xff"))
	var v map[string]string
	if err := json.Unmarshal([]byte(got), &v); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if v["message"] != "a\"b\\c\n\x01\uFFFD" {
		t.Fatalf("message %q", v["message"])
	}
}

// classifyReference is what Classify must agree with: encoding/json's
// validity plus UTF-8, and a string "type" member at the top level.
func classifyReference(line []byte) (LineKind, FrameType) {
	t := []byte(strings.TrimSpace(string(line)))
	if string(t) == codec.ResultMarker {
		return Marker, 0
	}
	if len(t) == 0 || t[0] != '{' || !json.Valid(finiteOnly(t)) || !utf8.Valid(t) {
		return Text, 0
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(finiteOnly(t), &m) != nil {
		return Text, 0
	}
	var typ string
	if raw, ok := m["type"]; !ok || json.Unmarshal(raw, &typ) != nil || raw[0] != '"' {
		return Text, 0
	}
	return Framed, frameType([]byte(strconvQuote(typ)))
}

// finiteOnly replaces Python's NaN, Infinity and -Infinity outside strings
// with " 0 ", so that encoding/json judges the rest: padded, a token glued
// to another ("1NaN", "-NaN", "NaNx") stays invalid.
func finiteOnly(b []byte) []byte {
	var out []byte
	inString, escaped := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			inString = escaped || c != '"'
			escaped = !escaped && c == '\\'
		case c == '"':
			inString = true
		default:
			if tok := nonFiniteAt(b[i:]); tok > 0 {
				out = append(out, " 0 "...)
				i += tok - 1
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

func nonFiniteAt(b []byte) int {
	for _, tok := range []string{"-Infinity", "Infinity", "NaN"} {
		if bytes.HasPrefix(b, []byte(tok)) {
			return len(tok)
		}
	}
	return 0
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

func FuzzClassify(f *testing.F) {
	for _, s := range []string{`{"type":"call","id":"a","fn":"f","args":[1,2.5e3,{"x":null}]}`,
		"---RESULT---", `{"type":"log","data":"\u00e9\ud83d\ude00"}`, `{"a":[true,false,null,-0.1E+2]}`,
		`{"type":"result","id":"a","value":"` + "\xe2\x82" + `"}`, `{}`, `{"type":"x",}`, ` {"type" : "ready" } `,
		// strings long enough for the eight-byte scan, with a special byte at each offset
		`{"type":"result","id":"0e230c36b0d040119b5437fe13c2bdb8","value":"abcdefgh\"ijklmnop\\qrstuvwxyzé✓"}`,
		"{\"type\":\"log\",\"data\":\"abcdefg\x01hijklmno\"}", "{\"type\":\"log\",\"data\":\"abcdefghijk\xffmnop\"}",
		`{"type":"log","data":"abcdefg"}`, `{"type":"log","data":"abcdefgh"}`, `{"type":"log","data":"abcdefghi`} {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"type":"result","id":"a","value":[NaN,-Infinity,Infinity]}`, `{"type":"x","v":-NaN}`,
		`{"type":"x","v":"NaN\"NaN"}`, `{"type":"x","v":1NaN}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var fr Frame
		kind, trimmed := Classify(line, &fr)
		wantKind, wantType := classifyReference(line)
		// Duplicate keys: json.Unmarshal into a map keeps the last, as Classify does.
		if kind != wantKind {
			t.Fatalf("Classify(%q) = %v, reference %v", line, kind, wantKind)
		}
		if kind == Framed && fr.Type != wantType {
			t.Fatalf("Classify(%q) type %v, reference %v", line, fr.Type, wantType)
		}
		if len(trimmed) > len(line) {
			t.Fatal("trimmed longer than line")
		}
	})
}
