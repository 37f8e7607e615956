// Package periodic runs a function at a fixed period for the worker and
// its brokers (in-progress heartbeats, fallback replays).
package periodic

import (
	"context"
	"time"
)

// Every calls f(ctx) every d until ctx ends, then returns at once, with no
// call after; the first call is d after the start. Run it in a goroutine
// its owner waits for.
func Every(ctx context.Context, d time.Duration, f func(ctx context.Context)) {
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if ctx.Err() != nil { // both were ready: select picked one at random
				return
			}
			f(ctx)
		}
	}
}
