package judge

import (
	"testing"
	"time"

	"github.com/tether-dev/tether/dual"
)

// everyEvent wants every kind and only looks at each event.
type everyEvent struct{ bytes int }

func (o *everyEvent) Wants(EventKind) bool { return true }
func (o *everyEvent) Observe(ev *Event)    { o.bytes += len(ev.Line) + len(ev.ID) }

// BenchmarkEmitPerCall is what telling an observer about one call costs
// the relay's goroutine, the observer's own work aside: the call's line
// with its opening, and its answer's line with its closing, through the
// run's relay observer.
func BenchmarkEmitPerCall(b *testing.B) {
	r := &run{opts: Options{Observer: &everyEvent{}}}
	o := newRelayObserver(r)
	call := []byte(`{"type":"call","id":"3f2a9c7e5b1d4e6f8a0b2c4d6e8f0a1b","fn":"add","args":[123,1]}`)
	res := []byte(`{"type":"result","id":"3f2a9c7e5b1d4e6f8a0b2c4d6e8f0a1b","value":124}`)
	id, fn := call[21:53], []byte("add")
	now := time.Now()
	opened := dual.Event{Kind: EventCallOpened, Side: dual.Evaluator, ID: id, Name: fn, At: now,
		LineKind: dual.Framed, Line: call, Length: int64(len(call))}
	closed := dual.Event{Kind: EventCallClosed, Side: dual.Evaluator, ID: id, Name: fn, At: now, Outcome: dual.EndResult,
		Took: time.Millisecond, LineKind: dual.Framed, Line: res, Length: int64(len(res))}
	for b.Loop() {
		o.Observe(&opened)
		o.Observe(&closed)
	}
}
