package lmstart_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/judge/lmstart"
	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/lm/lmconfig"
)

func benchQuery(b *testing.B, socket string) {
	c, err := lm.NewClient("unix:"+socket, nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.Query(context.Background(), "hi", ""); err != nil {
		b.Fatal(err)
	}
	c.Close()
}

// The cost the judge adds per run by giving each run its own handler:
// start on a fresh socket, one query, usage, close...
func BenchmarkHandlerPerRun(b *testing.B) {
	starter := lmstart.Starter(lmconfig.Echo(), nil)
	dir := b.TempDir()
	socket := filepath.Join(dir, "lm.sock")
	b.ReportAllocs()
	for b.Loop() {
		h, err := starter(context.Background(), nil, socket, nil)
		if err != nil {
			b.Fatal(err)
		}
		benchQuery(b, socket)
		if _, err := h.UsageJSON(); err != nil {
			b.Fatal(err)
		}
		if err := h.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// ...against the baseline of one shared handler: the same query on a new
// connection to a handler that is already running.
func BenchmarkHandlerShared(b *testing.B) {
	socket := filepath.Join(b.TempDir(), "lm.sock")
	h, err := lmstart.Starter(lmconfig.Echo(), nil)(context.Background(), nil, socket, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	b.ReportAllocs()
	for b.Loop() {
		benchQuery(b, socket)
	}
}
