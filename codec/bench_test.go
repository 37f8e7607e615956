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
	for _, bv := range benchValues() {
		wire, err := Marshal(bv.value)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bv.name+"/codec", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(wire)))
			for b.Loop() {
				if _, err := Marshal(bv.value); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bv.name+"/encoding_json", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(wire)))
			for b.Loop() {
				if _, err := json.Marshal(bv.value); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkUnmarshal(b *testing.B) {
	for _, bv := range benchValues() {
		wire, err := Marshal(bv.value)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bv.name+"/codec", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(wire)))
			for b.Loop() {
				if _, err := Unmarshal(wire); err != nil {
					b.Fatal(err)
				}
			}
		})
		// encoding/json into any: the same text, though it leaves the
		// base64 undecoded and does not check duplicates or depth.
		b.Run(bv.name+"/encoding_json", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(wire)))
			for b.Loop() {
				var v any
				if err := json.Unmarshal(wire, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
