package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// batchCountingWriter records each Write.
type batchCountingWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
}

func (c *batchCountingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes++
	return c.buf.Write(p)
}

func TestLineWriterKeepsConcurrentLinesWhole(t *testing.T) {
	var cw batchCountingWriter
	lw := NewLineWriter(&cw)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				lw.WriteLine(fmt.Appendf(nil, "g%02d-%04d-%s", g, i, bytes.Repeat([]byte("x"), i%50)))
			}
		}()
	}
	wg.Wait()
	if err := lw.Flush(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	sc := bufio.NewScanner(&cw.buf)
	for sc.Scan() {
		var g, i int
		var tail string
		if n, _ := fmt.Sscanf(sc.Text(), "g%02d-%04d-%s", &g, &i, &tail); n < 2 || len(tail) != i%50 {
			t.Fatalf("torn line %q", sc.Text())
		}
		seen[sc.Text()] = true
	}
	if len(seen) != 16*500 {
		t.Fatalf("%d distinct lines, want %d", len(seen), 16*500)
	}
	t.Logf("%d lines in %d writes", len(seen), cw.writes)
}

func TestLineWriterErrorSticks(t *testing.T) {
	lw := NewLineWriter(io.Discard)
	if err := lw.WriteLine([]byte("a\nb")); !errors.Is(err, ErrNewline) {
		t.Fatalf("err = %v", err)
	}
	r, w := io.Pipe()
	r.Close()
	lw = NewLineWriter(w)
	if err := lw.WriteLine([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("err = %v", err)
	}
	if err := lw.Flush(); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("Flush err = %v", err)
	}
}

// WriteLineNow writes before any other goroutine runs; WriteLine first
// lets goroutines that are ready run, so their lines can share its Write.
// The scheduler promises no order (the race detector and async preemption
// move it now and then), so each is tried many times and judged by how
// often another goroutine ran first: nearly always for WriteLine, nearly
// never for WriteLineNow.
func TestLineWriterNowDoesNotWaitForOthers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // the goroutine below can only run if the writer yields
	const tries = 40
	for _, tc := range []struct {
		name      string
		write     func(*LineWriter, []byte) error
		othersRan bool
	}{
		{"WriteLineNow", (*LineWriter).WriteLineNow, false},
		{"WriteLine", (*LineWriter).WriteLine, true},
	} {
		ranFirst := 0
		for range tries {
			var cw batchCountingWriter
			lw := NewLineWriter(&cw)
			var ran atomic.Bool
			done := make(chan struct{})
			go func() {
				ran.Store(true)
				close(done)
			}()
			if err := tc.write(lw, []byte("x")); err != nil {
				t.Fatal(err)
			}
			if ran.Load() {
				ranFirst++
			}
			if cw.buf.String() != "x\n" {
				t.Fatalf("%s wrote %q", tc.name, cw.buf.String())
			}
			<-done
		}
		if mostly := ranFirst > tries*3/4; mostly != tc.othersRan || (!tc.othersRan && ranFirst > tries/4) {
			t.Errorf("%s: another goroutine ran first in %d of %d tries; want it to %v", tc.name, ranFirst, tries, map[bool]string{true: "nearly always", false: "nearly never"}[tc.othersRan])
		}
	}
}
