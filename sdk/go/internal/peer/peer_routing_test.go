package peer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"go.uber.org/goleak"

	"github.com/tether-dev/tether/sdk/go/internal/frame"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestPeerRoutesResponsesAndFailsPendingOnEOF(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	others := make(chan frame.Frame, 4)
	p := New(inR, outW, func(f frame.Frame) { others <- f })
	p.Start()
	defer p.Close()
	written := linesOf(outR)

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
	<-written // the request is registered before it is written: the response cannot overtake it
	io.WriteString(inW, `{"type":"result","id":"id1","value":7}`+"\n")
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	pending := make(chan error, 1)
	go func() { _, err := p.Request(context.Background(), "id2", []byte(`{}`)); pending <- err }()
	<-written
	inW.Close()
	if err := <-pending; !errors.Is(err, ErrClosed) {
		t.Fatalf("pending request after EOF: %v", err)
	}
	outW.Close()
}

// linesOf hands on each line written to r, until r ends: a test waits for
// a request's line, written once the request is registered, instead of
// polling for its registration.
func linesOf(r io.Reader) <-chan string {
	lines := make(chan string, 128)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// Reply channels are reused: a late response to an abandoned request must
// never reach a later request, whatever channel it waits on.
func TestLateResponseNeverReachesAnotherRequest(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := New(inR, outW, func(frame.Frame) {})
	p.Start()
	defer func() { inW.Close(); p.Close(); outW.Close() }()
	written := linesOf(outR)
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
		<-written // the cancelled request's line
		<-written // the fresh one's: it is registered
		fmt.Fprintf(inW, `{"type":"result","id":%q,"value":1}`+"\n", old)
		fmt.Fprintf(inW, `{"type":"result","id":%q,"value":2}`+"\n", fresh)
		if f := <-got; f.ID != fresh || f.Value != int64(2) {
			t.Fatalf("request %s got %+v", fresh, f)
		}
	}
}
