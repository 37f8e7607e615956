package codec

import (
	"encoding/json"
	"strconv"
	"testing"
)

// benchValues are the representative values of the issue: a small call
// argument list, a 64 KiB bytes value and a nested map.
func benchValues() []struct {
	name  string
	value any
} {
	blob := make([]byte, 64<<10)
	for i := range blob {
		blob[i] = byte(i * 7)
	}
	users := []any{}
	for i := range 20 {
		users = append(users, map[string]any{
			"id":     int64(i),
			"name":   "user " + strconv.Itoa(i),
			"score":  float64(i) * 1.25,
			"tags":   []any{"a", "b", "c"},
			"active": i%2 == 0,
			"meta":   map[string]any{"created": "2024-01-01T00:00:00Z", "ratio": 0.1, "note": nil},
		})
	}
	return []struct {
		name  string
		value any
	}{
		{"args", []any{int64(42), "hello, world", 3.5, true, nil, map[string]any{"k": "v", "n": int64(-1)}}},
		{"bytes64k", blob},
		{"nested", map[string]any{"users": users, "page": int64(1), "total": int64(20)}},
	}
}

func BenchmarkMarshal(b *testing.B) {
	benchAgainstEncodingJSON(b, func(v any, _ []byte) error {
		_, err := Marshal(v)
		return err
	}, func(v any, _ []byte) error {
		_, err := json.Marshal(v)
		return err
	})
}

// BenchmarkUnmarshal's encoding/json decodes into any: the same text,
// though it leaves the base64 undecoded and does not check duplicates or
// depth.
func BenchmarkUnmarshal(b *testing.B) {
	benchAgainstEncodingJSON(b, func(_ any, wire []byte) error {
		_, err := Unmarshal(wire)
		return err
	}, func(_ any, wire []byte) error {
		var v any
		return json.Unmarshal(wire, &v)
	})
}

// benchAgainstEncodingJSON runs codecOp and jsonOp side by side on each of
// benchValues, given the value and its wire form; bytes/s count the wire
// form.
func benchAgainstEncodingJSON(b *testing.B, codecOp, jsonOp func(v any, wire []byte) error) {
	for _, bv := range benchValues() {
		wire, err := Marshal(bv.value)
		if err != nil {
			b.Fatal(err)
		}
		for _, op := range []struct {
			name string
			run  func(v any, wire []byte) error
		}{{"codec", codecOp}, {"encoding_json", jsonOp}} {
			b.Run(bv.name+"/"+op.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(wire)))
				for b.Loop() {
					if err := op.run(bv.value, wire); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
