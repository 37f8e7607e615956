package codec

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"testing"
	"unicode/utf8"
)

// FuzzUnmarshal: decoding never panics, accepts only valid JSON, and
// whatever decodes re-encodes canonically to a value that decodes equal.
func FuzzUnmarshal(f *testing.F) {
	for _, c := range loadVectors(f) {
		if c.Wire != nil {
			f.Add([]byte(*c.Wire))
		}
	}
	for _, s := range []string{`{"a":[1,2.5,"x",null,true,{"__bytes__":"AA=="}]}`,
		`"\ud83d\ude00\u00e9\n"`, `[1e999]`, `-0.0`, `{"__bytes__":5}`, "[\"\xff\"]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Unmarshal(data)
		if err != nil {
			var pe *PathError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *PathError", err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		checkRoundTrip(t, v)
	})
}

// FuzzRoundTrip: strings (escaping, UTF-8 checks), floats (repr
// formatting), ints and bytes survive encode and decode, or fail with the
// right sentinel.
func FuzzRoundTrip(f *testing.F) {
	f.Add("key", 1.5, int64(7), []byte{0, 255})
	f.Add("\x00\"\\\u2028😀", math.Copysign(0, -1), int64(math.MinInt64), []byte{})
	f.Add("\xff", 1e16, int64(-1), []byte("x"))
	f.Add("__bytes__", math.NaN(), int64(0), []byte(nil))
	f.Add("é", 5e-324, int64(math.MaxInt64), []byte("\n"))
	f.Fuzz(func(t *testing.T, s string, x float64, n int64, b []byte) {
		v := []any{s, x, n, b, map[string]any{s: []any{x, s}, "n": n}}
		_, err := Marshal(v)
		switch {
		case !utf8.ValidString(s):
			if !errors.Is(err, ErrInvalidUTF8) {
				t.Fatalf("invalid UTF-8 %q: error %v", s, err)
			}
			return
		case !isFinite(x):
			if !errors.Is(err, ErrNonFinite) {
				t.Fatalf("%v: error %v", x, err)
			}
			return
		case err != nil:
			t.Fatalf("Marshal: %v", err)
		}
		if b == nil {
			v[3] = []byte{} // nil encodes as empty bytes, which decode as []byte{}
		}
		checkRoundTrip(t, v)
		text := string(appendFloat(nil, x))
		if g, err := strconv.ParseFloat(text, 64); err != nil || math.Float64bits(g) != math.Float64bits(x) {
			t.Fatalf("float %b written as %s reads back as %b", x, text, g)
		}
	})
}
