package frame

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/tether-dev/tether/codec"
)

// The Append forms write the frame around the codec's own encoding of
// the args or value, after whatever dst held.
func TestAppendFormsWrapTheCodecsEncoding(t *testing.T) {
	argLists := [][]any{nil, {}, {int64(12344), 1}, {"héllo", []any{true, nil}, map[string]any{"k": 2.5}}, {[]byte("hi")}}
	for _, args := range argLists {
		enc, err := codec.MarshalArgs(args)
		if err != nil {
			t.Fatal(err)
		}
		val, _ := codec.Marshal(args)
		for _, c := range []struct {
			name      string
			prefix    string
			got       func(dst []byte) ([]byte, error)
			wantFrame string
		}{
			{"call", "kept:", func(dst []byte) ([]byte, error) { return AppendRequest(dst, "call", "id1", "add", args, 250) },
				`{"type":"call","id":"id1","fn":"add","args":` + string(enc) + `,"timeout_ms":250}`},
			{"call without timeout", "", func(dst []byte) ([]byte, error) { return AppendRequest(dst, "call", "id1", "add", args, 0) },
				`{"type":"call","id":"id1","fn":"add","args":` + string(enc) + `}`},
			{"capability", "", func(dst []byte) ([]byte, error) { return AppendRequest(dst, "capability", "c1", "llm", args, 0) },
				`{"type":"capability","id":"c1","name":"llm","args":` + string(enc) + `}`},
			{"result", "", func(dst []byte) ([]byte, error) { return AppendResult(dst, "r1", args) },
				`{"type":"result","id":"r1","value":` + string(val) + `}`},
		} {
			got, err := c.got([]byte(c.prefix))
			if want := c.prefix + c.wantFrame; err != nil || string(got) != want {
				t.Errorf("%s %v = %s, %v; want %s", c.name, args, got, err, want)
			}
		}
	}
}

func TestAppendFormsRejectUntransferableValues(t *testing.T) {
	dst := []byte("kept")
	args := []any{1, math.NaN()}
	_, wantErr := codec.MarshalArgs(args)
	var want *codec.PathError
	if !errors.As(wantErr, &want) {
		t.Fatalf("MarshalArgs error %v is not a *codec.PathError", wantErr)
	}
	check := func(name string, got []byte, err error, path string) {
		t.Helper()
		var pe *codec.PathError
		if !errors.As(err, &pe) || !errors.Is(err, codec.ErrNonFinite) || pe.Path != path {
			t.Errorf("%s: err = %v, want a NaN error at %s", name, err, path)
		}
		if !bytes.Equal(got, []byte("kept")) {
			t.Errorf("%s: dst = %q, want it unchanged", name, got)
		}
	}
	got, err := AppendRequest(dst, "call", "i", "f", args, 0)
	check("AppendRequest call", got, err, want.Path)
	got, err = AppendRequest(dst, "capability", "i", "n", args, 0)
	check("AppendRequest capability", got, err, want.Path)
	got, err = AppendResult(dst, "i", args)
	_, wantValueErr := codec.Marshal(args)
	errors.As(wantValueErr, &want)
	check("AppendResult", got, err, want.Path)
}

func TestGetBufferIsEmpty(t *testing.T) {
	b := GetBuffer()
	if len(*b) != 0 {
		t.Fatalf("GetBuffer gave %d bytes, want an empty buffer", len(*b))
	}
	*b = append(*b, "frame"...)
	PutBuffer(b)
	if b2 := GetBuffer(); len(*b2) != 0 {
		t.Fatalf("a recycled buffer came back with %q", *b2)
	}
}
