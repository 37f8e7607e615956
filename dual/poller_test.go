package dual

import (
	"testing"
	"time"
)

func TestSpinWindowAdapts(t *testing.T) {
	w := spinWindow{max: 50 * time.Microsecond}
	steps := []struct {
		idle time.Duration
		want time.Duration
	}{
		{10 * time.Microsecond, minSpin},               // a gap spinning would have caught: start
		{20 * time.Microsecond, 2 * minSpin},           // again: grow
		{30 * time.Microsecond, 4 * minSpin},           //
		{40 * time.Microsecond, 8 * minSpin},           //
		{45 * time.Microsecond, 50 * time.Microsecond}, // capped at max
		{time.Millisecond, 25 * time.Microsecond},      // a gap no spin catches: shrink
		{time.Millisecond, 12500 * time.Nanosecond},    //
		{time.Millisecond, 6250 * time.Nanosecond},     //
		{time.Millisecond, 0},                          // below minSpin: none
		{time.Millisecond, 0},                          // and stays off for slow peers
		{5 * time.Microsecond, minSpin},                // until a quick gap again
	}
	for i, s := range steps {
		w.adapt(s.idle)
		if w.cur != s.want {
			t.Fatalf("step %d (idle %v): window %v, want %v", i, s.idle, w.cur, s.want)
		}
	}
	off := spinWindow{max: 0}
	off.adapt(time.Microsecond)
	if off.cur != 0 {
		t.Fatalf("a zero max grew to %v", off.cur)
	}
}
