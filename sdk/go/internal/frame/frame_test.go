package frame

import (
	"errors"
	"reflect"
	"regexp"
	"testing"

	"github.com/tether-dev/tether/codec"
)

func TestNewIDIsUUID4Hex(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$`)
	seen := map[string]bool{}
	for range 100 {
		id := NewID()
		if !re.MatchString(id) || seen[id] {
			t.Fatalf("id %q: not a fresh uuid4 hex", id)
		}
		seen[id] = true
	}
}

// must is the line of an Append form whose values are transferable.
func must(line []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return line
}

func TestEncodedFramesParseBack(t *testing.T) {
	cases := []struct {
		line []byte
		want Frame
	}{
		{must(AppendRequest(nil, "call", "a1", `f"n`, []any{1, "x"}, 250)), Frame{Type: "call", ID: "a1", Fn: `f"n`, Args: []any{int64(1), "x"}, TimeoutMs: 250}},
		{must(AppendRequest(nil, "call", "a1", "f", nil, 0)), Frame{Type: "call", ID: "a1", Fn: "f", Args: []any{}}},
		{must(AppendRequest(nil, "capability", "c", "llm", []any{}, 0)), Frame{Type: "capability", ID: "c", Name: "llm", Args: []any{}}},
		{must(AppendResult(nil, "r", map[string]any{"k": nil})), Frame{Type: "result", ID: "r", Value: map[string]any{"k": nil}}},
		{Error("e", codec.CodeException, "boom\n", "tr"), Frame{Type: "error", ID: "e", Code: "Exception", Message: "boom\n", Trace: "tr"}},
		{CapReg("llm", 10), Frame{Type: "cap_reg", Name: "llm", TimeoutMs: 10}},
		{Log("stdout", "hi\n"), Frame{Type: "log", Stream: "stdout", Data: "hi\n"}},
		{Ready, Frame{Type: "ready"}},
	}
	for _, c := range cases {
		got, err := Parse(c.line)
		if err != nil {
			t.Fatalf("Parse(%s): %v", c.line, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Parse(%s) = %#v, want %#v", c.line, got, c.want)
		}
	}
}

func TestParseRejectsNonFrames(t *testing.T) {
	for _, line := range []string{`hello`, `{"x":1}`, `[1]`, `{"type":3}`, `{"type":""}`, `{"type":"a","type":"b"}`, `{"type":"result","value":NaN}`} {
		if _, err := Parse([]byte(line)); !errors.Is(err, ErrNotFrame) {
			t.Errorf("Parse(%s) accepted", line)
		}
	}
}

// Inspect recovers type and id from lines the codec refuses, including
// Python's default NaN / Infinity / -Infinity tokens, which encoding/json
// cannot read either, and roots the codec's path at the frame's member.
func TestInspect(t *testing.T) {
	cases := []struct {
		line string
		want Undecodable
	}{
		{`{"type":"result","id":"x","value":NaN}`, Undecodable{"result", "x", "value: NaN is not transferable"}},
		{`{"type":"result","id":"x","value":[1,{"k":Infinity}]}`, Undecodable{"result", "x", `value[1]["k"]: Infinity is not transferable`}},
		{`{"value": -Infinity, "id": "x", "type": "error"}`, Undecodable{"error", "x", "value: -Infinity is not transferable"}},
		{`{"type":"result","id":"x","value":{"a":1,"a":2}}`, Undecodable{"result", "x", `value["a"]: duplicate key at offset 41`}},
		{`{"type":"call","id":"c1","fn":"f","args":[1,NaN]}`, Undecodable{"call", "c1", "args[1]: NaN is not transferable"}},
		{`{"type":"call","id":"c1","fn":"f","args":[{"a":1,"a":2}]}`, Undecodable{"call", "c1", `args[0]["a"]: duplicate key at offset 49`}},
		{`{"type":"call","id":"c1","fn":"f","args":[{"__bytes__":"!"}]}`, Undecodable{"call", "c1", "args[0]: invalid base64 in __bytes__: illegal base64 data at input byte 0"}},
		{`{"type":"capability","id":"k","name":"n","args":[1e999]}`, Undecodable{"capability", "k", "args[0]: number 1e999 overflows float64 and is not transferable"}},
		{`{"type":"call","\u0069d":"c2","fn":"f","args":[NaN]}`, Undecodable{"call", "c2", "args[0]: NaN is not transferable"}},
		{`{"type":"call","id":"a","id":"b","fn":"f","args":[]}`, Undecodable{"call", "b", "id: duplicate key at offset 24"}}, // the last id, as json.loads
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.line))
		if err == nil {
			t.Fatalf("Parse(%s) accepted", c.line)
		}
		got, ok := Inspect([]byte(c.line), err)
		if !ok || got != c.want {
			t.Errorf("Inspect(%s) = %+v, %v; want %+v", c.line, got, ok, c.want)
		}
		if r := got.Rejected(); r.Type != "error" || r.ID != c.want.ID || r.Code != codec.CodeRejected || r.Message != c.want.Message {
			t.Errorf("Rejected() = %+v", r)
		}
	}
}

func TestInspectNeedsTypeAndID(t *testing.T) {
	for _, line := range []string{
		`hello`,
		`[{"type":"result","id":"x","value":NaN}]`,
		`{"type":"result","id":"x","value":NaN`,
		`{"type":"result","id":"x","value":NaN} x`,
		`{"type":"result","id":"x","value":nan}`,
		`{"type":"result","value":NaN}`,
		`{"type":"result","id":"","value":NaN}`,
		`{"type":"result","id":7,"value":NaN}`,
		`{"type":"result","id":"\ud800","value":NaN}`,
		`{"type":NaN,"id":"x"}`,
		`{"type":"call","id":"c1","fn":"echo","args":[1 2]}`, // not JSON: plain text, not a frame to answer
		`{"type":"result","id":"x","value":{"a" 1}}`,
		`{"id":"x","value":NaN}`,
		`{}`,
	} {
		_, err := Parse([]byte(line))
		if err == nil {
			t.Fatalf("Parse(%s) accepted", line)
		}
		if u, ok := Inspect([]byte(line), err); ok {
			t.Errorf("Inspect(%s) = %+v", line, u)
		}
	}
}
