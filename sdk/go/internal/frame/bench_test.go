package frame

import (
	"testing"

	"github.com/tether-dev/tether/codec"
)

var sampleResult = []byte(`{"type":"result","id":"0e230c36b0d040119b5437fe13c2bdb8","value":12345}`)
var sampleCall = []byte(`{"type":"call","id":"0e230c36b0d040119b5437fe13c2bdb8","fn":"add","args":[12344,1]}`)

func BenchmarkParseResult(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Parse(sampleResult)
	}
}

func BenchmarkParseCall(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Parse(sampleCall)
	}
}

func BenchmarkEncodeCall(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		args, _ := codec.MarshalArgs([]any{12344, 1})
		Call(NewID(), "add", args, 0)
	}
}

func BenchmarkCodecWholeCall(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		codec.Unmarshal(sampleCall)
	}
}
