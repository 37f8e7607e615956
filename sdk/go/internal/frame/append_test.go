package frame

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/tether-dev/tether/codec"
)

// The Append forms must write exactly what the two-step encoders write.
func TestAppendFormsMatchTwoStepEncoders(t *testing.T) {
	argLists := [][]any{nil, {}, {int64(12344), 1}, {"héllo", []any{true, nil}, map[string]any{"k": 2.5}}, {[]byte("hi")}}
	for _, args := range argLists {
		enc, err := codec.MarshalArgs(args)
		if err != nil {
			t.Fatal(err)
		}
		prefix := []byte("kept:")
		got, err := AppendCall(append([]byte{}, prefix...), "id1", "add", args, 250)
		if want := Call("id1", "add", enc, 250); err != nil || !bytes.Equal(got[len(prefix):], want) || !bytes.HasPrefix(got, prefix) {
			t.Errorf("AppendCall(%v) = %s, %v; want %s", args, got, err, want)
		}
		got, err = AppendCall(nil, "id1", "add", args, 0)
		if want := Call("id1", "add", enc, 0); err != nil || !bytes.Equal(got, want) {
			t.Errorf("AppendCall(%v, no timeout) = %s, %v; want %s", args, got, err, want)
		}
		got, err = AppendCapability(nil, "c1", "llm", args)
		if want := Capability("c1", "llm", enc); err != nil || !bytes.Equal(got, want) {
			t.Errorf("AppendCapability(%v) = %s, %v; want %s", args, got, err, want)
		}
		val, _ := codec.Marshal(args)
		got, err = AppendResult(nil, "r1", args)
		if want := Result("r1", val); err != nil || !bytes.Equal(got, want) {
			t.Errorf("AppendResult(%v) = %s, %v; want %s", args, got, err, want)
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
	got, err := AppendCall(dst, "i", "f", args, 0)
	check("AppendCall", got, err, want.Path)
	got, err = AppendCapability(dst, "i", "n", args)
	check("AppendCapability", got, err, want.Path)
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
