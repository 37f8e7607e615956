package frame

import (
	"errors"
	"reflect"
	"regexp"
	"testing"
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

func TestEncodedFramesParseBack(t *testing.T) {
	cases := []struct {
		line []byte
		want Frame
	}{
		{Call("a1", `f"n`, []byte(`[1,"x"]`), 250), Frame{Type: "call", ID: "a1", Fn: `f"n`, Args: []any{int64(1), "x"}, TimeoutMs: 250}},
		{Call("a1", "f", []byte(`[]`), 0), Frame{Type: "call", ID: "a1", Fn: "f", Args: []any{}}},
		{Capability("c", "llm", []byte(`[]`)), Frame{Type: "capability", ID: "c", Name: "llm", Args: []any{}}},
		{Result("r", []byte(`{"k":null}`)), Frame{Type: "result", ID: "r", Value: map[string]any{"k": nil}}},
		{Error("e", CodeException, "boom\n", "tr"), Frame{Type: "error", ID: "e", Code: "Exception", Message: "boom\n", Trace: "tr"}},
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

func TestRejectedResponse(t *testing.T) {
	_, err := Parse([]byte(`{"type":"result","id":"x","value":NaN}`))
	f, ok := RejectedResponse([]byte(`{"type":"result","id":"x","value":{"a":1,"a":2}}`), err)
	if !ok || f.Type != "error" || f.ID != "x" || f.Code != CodeRejected || f.Message == "" {
		t.Fatalf("%+v %v", f, ok)
	}
	if _, ok := RejectedResponse([]byte(`{"type":"call","id":"x"}`), err); ok {
		t.Fatal("a call is not a response")
	}
}
