package hosttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"testing"
	"time"

	"github.com/tether-dev/tether/codec"
	"github.com/tether-dev/tether/internal/testlines"
)

// Host is one running host process.
type Host struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines *testlines.Reader
	done  chan struct{} // closed when the process has exited; err is then set
	err   error
}

// Start starts the host and reads its ready frame.
func Start(t *testing.T, l Lang) *Host {
	t.Helper()
	cmd := exec.Command(l.Command[0], l.Command[1:]...)
	cmd.Dir = l.Dir
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &Host{t: t, cmd: cmd, in: in, lines: testlines.Read(t, out), done: make(chan struct{})}
	go func() {
		h.err = cmd.Wait()
		close(h.done)
	}()
	t.Cleanup(func() {
		in.Close()
		select {
		case <-h.done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-h.done
		}
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("host stderr:\n%s", tail(stderr.String(), 4000))
		}
	})
	if f := h.Next(); f["type"] != "ready" {
		t.Fatalf("first frame %v, want ready", f)
	}
	return h
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// Send writes raw lines to the host.
func (h *Host) Send(lines ...string) {
	h.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(h.in, l+"\n"); err != nil {
			h.t.Fatalf("write to host: %v", err)
		}
	}
}

// SendAsync writes a line from a goroutine other than the test's (errors
// are left to the reads to show).
func (h *Host) SendAsync(line string) { io.WriteString(h.in, line+"\n") }

// NextLineAfterLogs is the next line that is not a log frame, as sent.
func (h *Host) NextLineAfterLogs() []byte {
	h.t.Helper()
	for {
		l := h.NextLine()
		if !bytes.HasPrefix(l, []byte(`{"type":"log"`)) {
			return l
		}
	}
}

// Call sends a call frame with args (Go values, encoded by the codec).
func (h *Host) Call(id, fn string, args ...any) {
	h.t.Helper()
	if args == nil {
		args = []any{}
	}
	a, err := codec.Marshal(args)
	if err != nil {
		h.t.Fatal(err)
	}
	h.Send(fmt.Sprintf(`{"type":"call","id":%q,"fn":%q,"args":%s}`, id, fn, a))
}

// NextLine is the host's next output line; the test fails if the host
// closes its stdout first or none comes within testlines.Wait.
func (h *Host) NextLine() []byte {
	h.t.Helper()
	return h.lines.Next()
}

// Next is the next line decoded as a JSON object (plain json: values are
// compared by the caller).
func (h *Host) Next() map[string]any {
	h.t.Helper()
	l := h.NextLine()
	var f map[string]any
	d := json.NewDecoder(bytes.NewReader(l))
	d.UseNumber()
	if err := d.Decode(&f); err != nil {
		h.t.Fatalf("host wrote a line that is not a JSON object: %q: %v", clip(l), err)
	}
	return f
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}

// Answer is the next non-log frame; the logs before it are returned too.
func (h *Host) Answer() (map[string]any, []map[string]any) {
	h.t.Helper()
	var logs []map[string]any
	for {
		f := h.Next()
		if f["type"] == "log" {
			logs = append(logs, f)
			continue
		}
		return f, logs
	}
}

// Expect reads the next answer and checks its id and type (and the code
// for an error); it returns the frame.
func (h *Host) Expect(id, typ, code string) map[string]any {
	h.t.Helper()
	f, _ := h.Answer()
	if f["id"] != id || f["type"] != typ || (code != "" && f["code"] != code) {
		h.t.Fatalf("got %v, want %s id %s %s", f, typ, id, code)
	}
	return f
}

// ExpectAll reads n answers (any order) and returns them by id; an id
// answered twice fails the test.
func (h *Host) ExpectAll(n int) map[string]map[string]any {
	h.t.Helper()
	got := map[string]map[string]any{}
	for len(got) < n {
		f, _ := h.Answer()
		id, _ := f["id"].(string)
		if _, dup := got[id]; dup {
			h.t.Fatalf("id %q answered twice: %v", id, f)
		}
		got[id] = f
	}
	return got
}

// Wait closes stdin and checks that the host exits with status 0.
func (h *Host) Wait() {
	h.t.Helper()
	h.in.Close()
	select {
	case <-h.done:
		if h.err != nil {
			h.t.Fatalf("host exit after stdin EOF: %v, want status 0", h.err)
		}
	case <-time.After(20 * time.Second):
		h.t.Fatalf("host still running 20 s after stdin EOF")
	}
}
