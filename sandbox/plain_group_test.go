package sandbox

import (
	"io"
	"os"
	"testing"
	"time"
)

// A background child that keeps stdout open dies when the program exits,
// so a reader of stdout sees EOF at once instead of when the child ends.
func TestPlainLeftoversDieWithTheProgram(t *testing.T) {
	p := startPlain(t, Spec{Args: []string{"sh", "-c", "sleep 60 & echo started"}})
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	out := p.Stdout().(*os.File)
	out.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(out)
	if err != nil {
		t.Fatalf("stdout after the program exited: %v (a leftover still holds it)", err)
	}
	if string(got) != "started\n" {
		t.Fatalf("stdout %q", got)
	}
}
