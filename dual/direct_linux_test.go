package dual

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

func TestDirectWriterOnlyForNonBlockingPipes(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	try := (&poller{}).writer(w)
	if try == nil {
		t.Fatal("no direct writer for an os.Pipe")
	}
	if n := try([]byte("abc\n")); n != 4 {
		t.Fatalf("wrote %d of 4 bytes to an empty pipe", n)
	}
	if line, _ := bufio.NewReader(r).ReadString('\n'); line != "abc\n" {
		t.Fatalf("read %q", line)
	}
	// A full pipe takes part of a big buffer and the call returns at once.
	big := make([]byte, 4<<20)
	if n := try(big); n <= 0 || n >= len(big) {
		t.Fatalf("wrote %d of %d bytes to a pipe nobody reads", n, len(big))
	}
	if (&poller{}).writer(io.Discard) != nil {
		t.Fatal("a direct writer for a plain io.Writer")
	}
	_, pw := io.Pipe()
	if (&poller{}).writer(pw) != nil {
		t.Fatal("a direct writer for an io.Pipe")
	}
}

func TestPutWritesDirectlyAndQueuesOnlyTheRestInOrder(t *testing.T) {
	q := newWriteQueue(1<<20, func(b []byte) int { return 2 }, 0)
	if !q.put([]byte("hello\n"), true, false) {
		t.Fatal("put on an open queue failed")
	}
	batch, _ := q.pop(nil)
	if string(batch) != "llo\n" {
		t.Fatalf("queued %q, want the unwritten rest", batch)
	}
	// The writer holds that batch: a direct write now would overtake it.
	called := false
	q.try = func(b []byte) int { called = true; return len(b) }
	q.put([]byte("next\n"), true, false)
	if called {
		t.Fatal("direct write while the writer holds an unwritten batch")
	}
	batch, _ = q.pop(batch[:0])
	if string(batch) != "next\n" {
		t.Fatalf("queued %q", batch)
	}
	q.close()
	if q.put([]byte("x\n"), true, false) {
		t.Fatal("put on a closed queue reported success")
	}
}

// TestRelayOverOSPipes runs a relay between two sides on real pipes, where
// the reader writes directly when it can: with frames larger than a pipe
// holds and a solution that stalls now and then, direct writes are partial
// and mix with queued ones; every frame must arrive whole and in order.
func TestRelayOverOSPipes(t *testing.T) {
	ev, sol := newSidePipes(t), newSidePipes(t)
	relay := NewRelay(ev.ep, sol.ep, RelayConfig{Engine: Config{MaxInFlight: 4096}})
	wait := runRelay(context.Background(), relay)

	const calls = 300
	size := func(i int) int { return []int{10, 200, 70 << 10, 150 << 10}[i%4] }
	solDone := make(chan error, 1)
	go func() { // the solution: checks order and size, echoes a small result
		defer sol.stdout.Close()
		fmt.Fprintln(sol.stdout, ready)
		rd := bufio.NewReaderSize(sol.stdin, 1<<20)
		for i := 0; i < calls; i++ {
			if i%50 == 0 {
				time.Sleep(20 * time.Millisecond) // let the pipe fill up
			}
			line, err := rd.ReadString('\n')
			if err != nil {
				solDone <- fmt.Errorf("call %d: %w", i, err)
				return
			}
			want := fmt.Sprintf(`{"type":"call","id":"c%d","fn":"f","args":["%s"]}`+"\n", i, strings.Repeat("x", size(i)))
			if line != want {
				solDone <- fmt.Errorf("call %d: got %d bytes starting %.60q, want %d bytes", i, len(line), line, len(want))
				return
			}
			fmt.Fprintf(sol.stdout, `{"type":"result","id":"c%d","value":%d}`+"\n", i, i)
		}
		solDone <- nil
	}()
	evDone := expectResults(ev.stdin, calls)
	for i := 0; i < calls; i++ {
		fmt.Fprintf(ev.stdout, `{"type":"call","id":"c%d","fn":"f","args":["%s"]}`+"\n", i, strings.Repeat("x", size(i)))
	}
	if err := <-solDone; err != nil {
		t.Fatal(err)
	}
	if err := <-evDone; err != nil {
		t.Fatal(err)
	}
	acceptAndWait(t, ev, wait, calls)
}
