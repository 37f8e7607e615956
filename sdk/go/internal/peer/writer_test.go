package peer

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tether-dev/tether/sdk/go/internal/frame"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// countingWriter records each Write.
type countingWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes++
	return c.buf.Write(p)
}

func TestLineWriterKeepsLinesWhole(t *testing.T) {
	var cw countingWriter
	lw := newLineWriter(&cw)
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

func TestLineWriterRejectsNewlineAndReportsErrors(t *testing.T) {
	lw := newLineWriter(io.Discard)
	if err := lw.WriteLine([]byte("a\nb")); !errors.Is(err, errNewline) {
		t.Fatalf("err = %v", err)
	}
	r, w := io.Pipe()
	r.Close()
	lw = newLineWriter(w)
	if err := lw.WriteLine([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("err = %v", err)
	}
	if err := lw.Flush(); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("Flush err = %v", err)
	}
}

func TestPeerRoutesResponsesAndFailsPendingOnEOF(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	others := make(chan frame.Frame, 4)
	p := New(inR, outW, func(f frame.Frame) { others <- f })
	p.Start()
	defer p.Close()
	go io.Copy(io.Discard, outR)

	got := make(chan error, 1)
	go func() {
		f, err := p.Request(context.Background(), "id1", []byte(`{"type":"call","id":"id1"}`))
		if err == nil && f.Value != int64(7) {
			err = fmt.Errorf("value %v", f.Value)
		}
		got <- err
	}()
	go func() {
		io.WriteString(inW, `{"type":"capability","id":"c","name":"n","args":[]}`+"\n")
		io.WriteString(inW, `{"type":"result","id":"unknown","value":1}`+"\n")
	}()
	if f := <-others; f.Type != "capability" {
		t.Fatalf("first other frame %+v", f)
	}
	if f := <-others; f.ID != "unknown" {
		t.Fatalf("response for an unknown id not handed on: %+v", f)
	}
	for p.pendingCount() == 0 { // the response must not overtake the request's registration
		time.Sleep(time.Millisecond)
	}
	io.WriteString(inW, `{"type":"result","id":"id1","value":7}`+"\n")
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	pending := make(chan error, 1)
	go func() { _, err := p.Request(context.Background(), "id2", []byte(`{}`)); pending <- err }()
	for p.pendingCount() == 0 {
		time.Sleep(time.Millisecond)
	}
	inW.Close()
	if err := <-pending; !errors.Is(err, ErrClosed) {
		t.Fatalf("pending request after EOF: %v", err)
	}
	outW.Close()
}

func (p *Peer) pendingCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.pending)
}

// Reply channels are reused: a late response to an abandoned request must
// never reach a later request, whatever channel it waits on.
func TestLateResponseNeverReachesAnotherRequest(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := New(inR, outW, func(frame.Frame) {})
	p.Start()
	defer func() { inW.Close(); p.Close(); outW.Close() }()
	go io.Copy(io.Discard, outR)
	for i := range 50 {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		old := fmt.Sprintf("old%d", i)
		if _, err := p.Request(ctx, old, []byte(`{}`)); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled request: %v", err)
		}
		fresh := fmt.Sprintf("new%d", i)
		got := make(chan frame.Frame, 1)
		go func() { f, _ := p.Request(context.Background(), fresh, []byte(`{}`)); got <- f }()
		for p.pendingCount() == 0 {
			time.Sleep(time.Millisecond)
		}
		fmt.Fprintf(inW, `{"type":"result","id":%q,"value":1}`+"\n", old)
		fmt.Fprintf(inW, `{"type":"result","id":%q,"value":2}`+"\n", fresh)
		if f := <-got; f.ID != fresh || f.Value != int64(2) {
			t.Fatalf("request %s got %+v", fresh, f)
		}
	}
}
