package testlines

import (
	"io"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Lines come in order without their '\n', a last line without one too.
func TestReadHandsOutEachLine(t *testing.T) {
	l := Read(t, strings.NewReader("one\ntwo\n\nlast"))
	for _, want := range []string{"one", "two", "", "last"} {
		if got := string(l.Next()); got != want {
			t.Fatalf("Next = %q, want %q", got, want)
		}
	}
}

// More lines than the reader keeps, left unread, do not keep its goroutine
// from ending once the test ends the stream (goleak checks it ended).
func TestUnreadLinesDoNotHoldTheReader(t *testing.T) {
	r, w := io.Pipe()
	l := Read(t, r)
	t.Cleanup(func() { r.Close() })
	go func() {
		for range 2000 {
			if _, err := io.WriteString(w, "unread\n"); err != nil {
				return
			}
		}
		w.Close()
	}()
	if got := string(l.Next()); got != "unread" {
		t.Fatalf("Next = %q", got)
	}
}

// What goroutines write at once comes out whole, each write as it was
// (go test -race checks the writes do not race with String).
func TestBufferKeepsConcurrentWrites(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("line\n"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if got := b.String(); got != strings.Repeat("line\n", 800) {
		t.Errorf("String = %d bytes, want 800 lines", len(got))
	}
}
