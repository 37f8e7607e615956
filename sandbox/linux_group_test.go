//go:build linux

package sandbox

import (
	"context"
	"io"
	"testing"
	"time"
)

// As with the plain runner: what the program left running dies with it, so
// its stdout reaches EOF.
func TestLinuxLeftoversDieWithTheProgram(t *testing.T) {
	r := requireLinuxRunner(t)
	p, err := r.Start(context.Background(), Spec{Args: []string{"sh", "-c", "sleep 60 & echo started"}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer p.Close()
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(p.Stdout())
		got <- string(b)
	}()
	select {
	case out := <-got:
		if out != "started\n" {
			t.Fatalf("stdout %q", out)
		}
	case <-time.After(10 * time.Second):
		p.Close()
		<-got
		t.Fatal("stdout still open 10 s after the program exited: a leftover holds it")
	}
}
