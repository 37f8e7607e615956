package trace

import (
	"io"
	"testing"
	"time"

	"github.com/tether-dev/tether/dual"
	"github.com/tether-dev/tether/judge"
)

// BenchmarkObservePerCall is what recording one call costs the relay's
// goroutine in the writer: the call with its frame, and the answer with
// its frame, encoded (the file is io.Discard).
func BenchmarkObservePerCall(b *testing.B) {
	w := NewWriter(io.Discard, Header{Started: t0}, 1<<62)
	defer w.Close()
	call := []byte(`{"type":"call","id":"3f2a9c7e5b1d4e6f8a0b2c4d6e8f0a1b","fn":"add","args":[123,1]}`)
	res := []byte(`{"type":"result","id":"3f2a9c7e5b1d4e6f8a0b2c4d6e8f0a1b","value":124}`)
	id, fn := call[21:53], []byte("add")
	opened := judge.Event{Event: dual.Event{Kind: judge.EventCallOpened, At: at(1), Side: dual.Evaluator, ID: id, Name: fn, Line: call, Length: int64(len(call)), LineKind: dual.Framed}}
	closed := judge.Event{Event: dual.Event{Kind: judge.EventCallClosed, At: at(2), Side: dual.Evaluator, ID: id, Name: fn, Outcome: dual.EndResult, Took: time.Millisecond, Line: res, Length: int64(len(res)), LineKind: dual.Framed}}
	for b.Loop() {
		w.Observe(&opened)
		w.Observe(&closed)
	}
}
