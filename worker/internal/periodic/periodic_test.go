package periodic

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// f runs on each tick with Every's context, and Every returns once that
// context ends, with no call after: not even when a tick is ready too
// (select would pick either; ten tries make a pick of the tick certain
// but for one chance in 1024).
func TestEveryCallsUntilTheContextEnds(t *testing.T) {
	for range 10 {
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		Every(ctx, time.Millisecond, func(fctx context.Context) {
			if fctx.Err() != nil {
				t.Error("f called with its context over")
			}
			if calls++; calls == 3 {
				cancel()
				time.Sleep(2 * time.Millisecond) // the next tick is ready as Every looks again
			}
		})
		if calls != 3 {
			t.Fatalf("%d calls, want 3 (the last one cancelled)", calls)
		}
	}
}
