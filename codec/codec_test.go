package codec

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"
)

func TestRoundTripDecodedTypes(t *testing.T) {
	huge, _ := new(big.Int).SetString("-123456789012345678901234567890", 10)
	values := []any{
		nil, true, false, int64(0), int64(math.MaxInt64), int64(math.MinInt64), huge,
		0.5, math.Copysign(0, -1), math.SmallestNonzeroFloat64, math.MaxFloat64,
		"", "héllo\u2028\x00\"\\", []byte{}, []byte{0, 1, 255},
		[]any{}, map[string]any{},
		[]any{int64(1), 1.0, "1", []byte("1"), nil, []any{map[string]any{"x": []any{}}}},
		map[string]any{"__bytes__": "aGk=", "other": int64(1)},
		map[string]any{"__bytes__": int64(5)},
		map[string]any{"": "empty key", "😀": map[string]any{"é": []byte("x")}},
	}
	for _, v := range values {
		checkRoundTrip(t, v)
	}
}

// checkRoundTrip fails t unless v encodes, the text decodes to the same
// value, and that encodes to the same text again (the canonical form is
// stable).
func checkRoundTrip(t *testing.T, v any) {
	t.Helper()
	wire, err := Marshal(v)
	if err != nil {
		t.Fatalf("Marshal(%#v): %v", v, err)
	}
	back, err := Unmarshal(wire)
	if err != nil {
		t.Fatalf("cannot decode own output %q: %v", wire, err)
	}
	if !sameValue(back, v) {
		t.Fatalf("round trip of %#v gave %#v via %q", v, back, wire)
	}
	again, err := Marshal(back)
	if err != nil || string(again) != string(wire) {
		t.Fatalf("canonical form not stable: %q then %q (%v)", wire, again, err)
	}
}

type (
	myInt    int16
	myString string
	myList   []any
	myBytes  []byte
)

func TestEncodableGoTypes(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{int(-3), "-3"}, {int8(-8), "-8"}, {int16(16), "16"}, {int32(32), "32"},
		{uint(1), "1"}, {uint8(255), "255"}, {uint16(16), "16"}, {uint32(32), "32"},
		{uint64(math.MaxUint64), "18446744073709551615"},
		{float32(0.1), "0.10000000149011612"}, {float32(2), "2.0"},
		{json.Number("12"), "12"}, {json.Number("-0"), "0"}, {json.Number("1e2"), "100.0"},
		{json.Number("123456789012345678901234567890"), "123456789012345678901234567890"},
		{big.NewInt(7), "7"},
		{myInt(-2), "-2"}, {myString("s"), `"s"`}, {myList{1, "a"}, `[1,"a"]`},
		{myBytes("hi"), `{"__bytes__":"aGk="}`},
		{[]string{"b", "a"}, `["b","a"]`}, {[]int(nil), "[]"}, {[]any(nil), "[]"},
		{map[string]any(nil), "{}"}, {[]byte(nil), `{"__bytes__":""}`},
		{map[string]int{"b": 2, "a": 1}, `{"a":1,"b":2}`},
		{map[myString][]float64{"k": {1, 2.5}}, `{"k":[1.0,2.5]}`},
		{map[any]any{"b": nil, "a": true}, `{"a":true,"b":null}`},
		{[][]byte{{1}}, `[{"__bytes__":"AQ=="}]`},
		{map[string]any{"__bytes__": json.Number("1")}, `{"__bytes__":1}`},
	}
	for _, tt := range tests {
		got, err := Marshal(tt.in)
		if err != nil {
			t.Errorf("Marshal(%#v): %v", tt.in, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("Marshal(%#v) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestMarshalArgs(t *testing.T) {
	got, err := MarshalArgs([]any{1, "x", []byte{0}})
	if err != nil || string(got) != `[1,"x",{"__bytes__":"AA=="}]` {
		t.Errorf("MarshalArgs = %s, %v", got, err)
	}
	got, err = MarshalArgs(nil)
	if err != nil || string(got) != "[]" {
		t.Errorf("MarshalArgs(nil) = %s, %v", got, err)
	}
	_, err = MarshalArgs([]any{1, nil, map[string]any{"x": math.Inf(1)}})
	wantPathError(t, err, `args[2]["x"]`, ErrNonFinite)
	if want := `codec: args[2]["x"]: Infinity is not transferable`; err.Error() != want {
		t.Errorf("error text %q, want %q", err, want)
	}
}

func TestAppendKeepsPrefixOnError(t *testing.T) {
	buf := []byte("prefix:")
	out, err := Append(buf, []any{1, 2, math.NaN()})
	if err == nil || string(out) != "prefix:" {
		t.Errorf("Append on error = %q, %v; want the prefix back and an error", out, err)
	}
	out, err = Append(buf, []any{1})
	if err != nil || string(out) != "prefix:[1]" {
		t.Errorf("Append = %q, %v", out, err)
	}
}

func wantPathError(t *testing.T, err error, path string, kind error) {
	t.Helper()
	var pe *PathError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is not a *PathError", err)
	}
	if pe.Path != path {
		t.Errorf("path %s, want %s (%v)", pe.Path, path, err)
	}
	if !errors.Is(err, kind) {
		t.Errorf("error %v is not %v", err, kind)
	}
	if !strings.HasPrefix(err.Error(), "codec: "+path+": ") {
		t.Errorf("error text %q does not start with codec: %s: ", err, path)
	}
}

func TestEncodeRejections(t *testing.T) {
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	deep := any(int64(1))
	for range MaxDepth + 1 {
		deep = []any{deep}
	}
	var nilBig *big.Int
	x := 1
	tests := []struct {
		name string
		in   any
		path string
		kind error
	}{
		{"NaN", math.NaN(), "value", ErrNonFinite},
		{"-Inf in list", []any{0, math.Inf(-1)}, "value[1]", ErrNonFinite},
		{"float32 Inf", map[string]any{"f": float32(math.Inf(1))}, `value["f"]`, ErrNonFinite},
		{"Inf in typed slice", []float64{1, math.Inf(1)}, "value[1]", ErrNonFinite},
		{"json.Number overflow", json.Number("1e999"), "value", ErrNonFinite},
		{"json.Number not a number", json.Number("0x1"), "value", ErrNotTransferable},
		{"struct", struct{}{}, "value", ErrNotTransferable},
		{"func", []any{func() {}}, "value[0]", ErrNotTransferable},
		{"chan", map[string]any{"c": make(chan int)}, `value["c"]`, ErrNotTransferable},
		{"pointer", &x, "value", ErrNotTransferable},
		{"nil *big.Int", nilBig, "value", ErrNotTransferable},
		{"array", [2]any{1, 2}, "value", ErrNotTransferable},
		{"json.RawMessage", json.RawMessage(`1`), "value", ErrNotTransferable},
		{"big.Int value", *big.NewInt(1), "value", ErrNotTransferable},
		{"complex", complex(1, 2), "value", ErrNotTransferable},
		{"int key", map[int]string{1: "a"}, "value", ErrNonStringKey},
		{"nil key", map[any]any{nil: 1}, "value", ErrNonStringKey},
		{"nested int key", []any{map[string]any{"k": map[any]any{"a": 1, 2: 2}}}, `value[0]["k"]`, ErrNonStringKey},
		{"keys colliding as strings", map[any]any{"a": 1, myString("a"): 2}, `value["a"]`, ErrDuplicateKey},
		{"invalid UTF-8 string", []any{"ok", "a\xffb"}, "value[1]", ErrInvalidUTF8},
		{"invalid UTF-8 key", map[string]any{"\xc3": 1}, "value[\"\uFFFD\"]", ErrInvalidUTF8},
		{"invalid UTF-8 named string", myString("\xed\xa0\x80"), "value", ErrInvalidUTF8},
		{"reserved __bytes__ map", map[string]any{"__bytes__": "aGk="}, "value", ErrReservedKey},
		{"reserved __bytes__ typed map", []any{map[string]myString{"__bytes__": "x"}}, "value[0]", ErrReservedKey},
		{"too many digits", new(big.Int).Exp(big.NewInt(10), big.NewInt(MaxIntDigits), nil), "value", ErrIntTooLong},
		{"cycle", cyclic, `value` + strings.Repeat(`["self"]`, MaxDepth), ErrTooDeep},
		{"too deep", deep, "value" + strings.Repeat("[0]", MaxDepth), ErrTooDeep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.in)
			if err == nil {
				t.Fatalf("Marshal = %s, want an error", got)
			}
			wantPathError(t, err, tt.path, tt.kind)
		})
	}
}

func TestDepthLimitIsExact(t *testing.T) {
	atLimit := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	v, err := Unmarshal([]byte(atLimit))
	if err != nil {
		t.Fatalf("depth %d rejected: %v", MaxDepth, err)
	}
	if out, err := Marshal(v); err != nil || string(out) != atLimit {
		t.Errorf("re-encoding depth %d: %v", MaxDepth, err)
	}
	over := "[" + atLimit + "]"
	_, err = Unmarshal([]byte(over))
	wantPathError(t, err, "value"+strings.Repeat("[0]", MaxDepth), ErrTooDeep)
	// Hostile depth far beyond the cap fails fast without exhausting the stack.
	_, err = Unmarshal([]byte(strings.Repeat(`{"a":[`, 1_000_000)))
	if !errors.Is(err, ErrTooDeep) {
		t.Errorf("million-deep input: %v", err)
	}
}

func TestDecodeRejections(t *testing.T) {
	tests := []struct {
		in   string
		path string
		kind error
	}{
		{`[1,NaN]`, "value[1]", ErrNonFinite},
		{`{"a":-Infinity}`, `value["a"]`, ErrNonFinite},
		{`[0,1e309]`, "value[1]", ErrNonFinite},
		{`{"a":{"k":1,"k":2}}`, `value["a"]["k"]`, ErrDuplicateKey},
		{`[{"__bytes__":"*"}]`, "value[0]", ErrInvalidBytes},
		{`{"x":{"__bytes__":"aGk"}}`, `value["x"]`, ErrInvalidBytes},
		{`["a","b\ud800"]`, "value[1]", ErrInvalidUTF8},
		{"{\"k\":[\"\xff\"]}", `value["k"][0]`, ErrInvalidUTF8},
		{"{\"\xff\":1}", "value", ErrInvalidUTF8},
		{"[" + strings.Repeat("7", MaxIntDigits+1) + "]", "value[0]", ErrIntTooLong},
		{`[1,2,]`, "value[2]", ErrSyntax},
		{`{"a":1} {}`, "value", ErrSyntax},
		{`{"a" 1}`, "value", ErrSyntax},
		{`{"a":[tru]}`, `value["a"][0]`, ErrSyntax},
		{"", "value", ErrSyntax},
	}
	for _, tt := range tests {
		got, err := Unmarshal([]byte(tt.in))
		if err == nil {
			t.Errorf("Unmarshal(%q) = %#v, want error", tt.in, got)
			continue
		}
		wantPathError(t, err, tt.path, tt.kind)
	}
}

func TestSyntaxErrorOffset(t *testing.T) {
	_, err := Unmarshal([]byte(`[1, 2, x]`))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Offset != 7 {
		t.Fatalf("error %v: want *SyntaxError at offset 7", err)
	}
}

func TestDecodedIntegerTypes(t *testing.T) {
	for in, want := range map[string]any{
		"9223372036854775807":  int64(math.MaxInt64),
		"-9223372036854775808": int64(math.MinInt64),
		"999999999999999999":   int64(999999999999999999),
		"-999999999999999999":  int64(-999999999999999999),
	} {
		got, err := Unmarshal([]byte(in))
		if err != nil || !sameValue(got, want) {
			t.Errorf("Unmarshal(%s) = %#v, %v; want int64", in, got, err)
		}
	}
	got, err := Unmarshal([]byte("9223372036854775808"))
	if b, ok := got.(*big.Int); err != nil || !ok || b.String() != "9223372036854775808" {
		t.Errorf("2^63 decoded as %#v, %v; want *big.Int", got, err)
	}
}

func TestUnmarshalDoesNotRetainInput(t *testing.T) {
	buf := []byte(`{"key":["text","esc\n"]}`)
	v, err := Unmarshal(buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range buf {
		buf[i] = 'X'
	}
	want := map[string]any{"key": []any{"text", "esc\n"}}
	if !sameValue(v, want) {
		t.Errorf("decoded value changed with the input buffer: %#v", v)
	}
}

func TestCheckFrameSize(t *testing.T) {
	for _, n := range []int{0, 1, MaxFrameSize} {
		if err := CheckFrameSize(n); err != nil {
			t.Errorf("CheckFrameSize(%d) = %v", n, err)
		}
	}
	err := CheckFrameSize(MaxFrameSize + 1)
	if !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("CheckFrameSize(max+1) = %v, want ErrFrameTooLarge", err)
	}
	// The text is fixed by the protocol (docs/protocol/judge.md), so it is compared exactly.
	if err.Error() != "frame size 1048577 > 1048576" {
		t.Errorf("text %q", err)
	}
	var fe *FrameSizeError
	if !errors.As(err, &fe) || fe.Size != MaxFrameSize+1 {
		t.Errorf("errors.As FrameSizeError: %#v", fe)
	}
}
