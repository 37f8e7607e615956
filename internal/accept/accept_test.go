package accept

import (
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Past the cap a connection is closed at once; once one closes, the next
// is served.
func TestCapClosesConnectionsOverIt(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := New(raw, 1)
	defer l.Close()
	accepted := make(chan net.Conn)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", raw.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		return c
	}
	first := dial()
	defer first.Close()
	server := <-accepted
	second := dial()
	defer second.Close()
	if _, err := second.Read(make([]byte, 1)); err != io.EOF && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("a connection over the cap: read %v, want it closed", err)
	}
	if l.Refused() != 1 || l.Open() != 1 {
		t.Errorf("open %d, refused %d; want 1 and 1", l.Open(), l.Refused())
	}
	server.Close()
	third := dial()
	defer third.Close()
	c := <-accepted
	c.Close()
	l.Close()
	for range accepted {
	}
}

func TestTemporary(t *testing.T) {
	for _, err := range []error{syscall.EMFILE, syscall.ENFILE, &net.OpError{Op: "accept", Err: syscall.EMFILE}} {
		if !Temporary(err) {
			t.Errorf("Temporary(%v) = false", err)
		}
	}
	if Temporary(net.ErrClosed) || Temporary(errors.New("x")) {
		t.Error("a closed listener is not temporary")
	}
}
