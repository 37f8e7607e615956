package frame

import (
	cryptorand "crypto/rand"
	"encoding/hex"
	"testing"

	"github.com/tether-dev/tether/codec"
)

var sampleResult = []byte(`{"type":"result","id":"0e230c36b0d040119b5437fe13c2bdb8","value":12345}`)
var sampleCall = []byte(`{"type":"call","id":"0e230c36b0d040119b5437fe13c2bdb8","fn":"add","args":[12344,1]}`)

// BenchmarkParse compares Parse (its envelope fast path) with parseWhole,
// the whole line through the codec into a map, on the frames of a call.
func BenchmarkParse(b *testing.B) {
	for _, c := range []struct {
		name string
		line []byte
	}{{"result", sampleResult}, {"call", sampleCall}} {
		b.Run(c.name+"/Parse", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Parse(c.line)
			}
		})
		b.Run(c.name+"/parseWhole", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				parseWhole(c.line)
			}
		})
	}
}

// BenchmarkAppendCall encodes a call the way the evaluator does: into a
// pooled buffer, which the line writer copies out.
func BenchmarkAppendCall(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		buf := GetBuffer()
		*buf, _ = AppendRequest(*buf, "call", NewID(), "add", []any{12344, 1}, 0)
		PutBuffer(buf)
	}
}

func BenchmarkCodecWholeCall(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		codec.Unmarshal(sampleCall)
	}
}

// BenchmarkNewID compares the id source with the crypto/rand one it
// replaced (same uuid4 hex shape).
func BenchmarkNewID(b *testing.B) {
	b.Run("math-rand-v2", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			NewID()
		}
	})
	b.Run("crypto-rand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var u [16]byte
			cryptorand.Read(u[:])
			u[6] = u[6]&0x0f | 0x40
			u[8] = u[8]&0x3f | 0x80
			_ = hex.EncodeToString(u[:])
		}
	})
}
