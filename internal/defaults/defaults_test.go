package defaults

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"
)

func TestPositiveReplacesOnlyUnsetNumbers(t *testing.T) {
	for _, c := range []struct{ v, want time.Duration }{{0, 5}, {-1, 5}, {1, 1}, {7, 7}} {
		v := c.v
		Positive(&v, 5)
		if v != c.want {
			t.Errorf("Positive(%d, 5) = %d, want %d", c.v, v, c.want)
		}
	}
	n := -3
	if Positive(&n, 2); n != 2 {
		t.Errorf("Positive(-3, 2) on an int = %d, want 2", n)
	}
}

func TestLoggerKeepsAGivenLogger(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, nil))
	if Logger(l) != l {
		t.Error("Logger replaced a given logger")
	}
	if d := Logger(nil); d == nil || d.Enabled(context.Background(), slog.LevelError) {
		t.Errorf("Logger(nil) = %v, want a logger that discards everything", d)
	}
}
