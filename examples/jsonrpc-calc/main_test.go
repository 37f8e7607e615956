package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain lets the test binary play the calculator, so the vectors run
// against the real program over its real stdin and stdout.
func TestMain(m *testing.M) {
	if os.Getenv("JSONRPC_CALC_BE_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

type vectorCase struct {
	title string
	sends []string // one message per entry, multi-line ones joined
	want  string   // "" when no response is expected
}

func loadVectors(t *testing.T) []vectorCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "jsonrpc", "spec-examples.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []vectorCase
	var cur vectorCase
	var title string
	var send, recv []string
	flush := func() {
		if len(send) > 0 {
			cur.sends = append(cur.sends, strings.Join(send, " "))
		}
		if len(cur.sends) > 0 {
			cur.title = title
			cur.want = strings.Join(recv, " ")
			cases = append(cases, cur)
		}
		cur, send, recv = vectorCase{}, nil, nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "# "):
			title = strings.TrimPrefix(line, "# ")
		case strings.HasPrefix(line, "-->"):
			send = append(send, strings.TrimSpace(strings.TrimPrefix(line, "-->")))
		case strings.HasPrefix(line, "<--"):
			recv = append(recv, strings.TrimSpace(strings.TrimPrefix(line, "<--")))
		case strings.TrimSpace(line) == "":
			flush()
		}
	}
	flush()
	return cases
}

// canonical parses a response and sorts batch entries, so that equal
// responses compare equal whatever order a batch came back in.
func canonical(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("response %q is not JSON: %v", s, err)
	}
	if arr, ok := v.([]any); ok {
		sort.Slice(arr, func(i, j int) bool {
			a, _ := json.Marshal(arr[i])
			b, _ := json.Marshal(arr[j])
			return string(a) < string(b)
		})
	}
	return v
}

type calcProcess struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
}

func startCalc(t *testing.T) *calcProcess {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "JSONRPC_CALC_BE_MAIN=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &calcProcess{cmd: cmd, stdin: stdin, lines: make(chan string, 16)}
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		<-readerDone
		if err := cmd.Wait(); err != nil {
			t.Errorf("calculator exited with %v", err)
		}
	})
	return p
}

func (p *calcProcess) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (p *calcProcess) next(t *testing.T) string {
	t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			t.Fatal("calculator closed its stdout")
		}
		return line
	case <-time.After(10 * time.Second):
		t.Fatal("no response from the calculator")
	}
	return ""
}

// TestSpecificationExamples runs every case of the shared vectors in one
// calculator process. After a case that expects nothing, a probe request
// proves that nothing was sent: its answer must be the very next line.
func TestSpecificationExamples(t *testing.T) {
	cases := loadVectors(t)
	if len(cases) < 14 {
		t.Fatalf("read %d cases from the vectors, want at least 14", len(cases))
	}
	p := startCalc(t)
	for i, c := range cases {
		t.Run(fmt.Sprintf("%02d %s", i, c.title), func(t *testing.T) {
			for _, msg := range c.sends {
				p.send(t, msg)
				if c.want != "" {
					continue
				}
				probe := fmt.Sprintf(`{"jsonrpc":"2.0","method":"get_data","id":"probe-%d"}`, i)
				p.send(t, probe)
				got := p.next(t)
				want := fmt.Sprintf(`{"jsonrpc":"2.0","result":["hello",5],"id":"probe-%d"}`, i)
				if !reflect.DeepEqual(canonical(t, got), canonical(t, want)) {
					t.Fatalf("after %s\ngot  %s\nwant %s (nothing for the notification, then the probe's answer)", msg, got, want)
				}
			}
			if c.want == "" {
				return
			}
			got := p.next(t)
			if !reflect.DeepEqual(canonical(t, got), canonical(t, c.want)) {
				t.Errorf("sent %s\ngot  %s\nwant %s", strings.Join(c.sends, " | "), got, c.want)
			}
		})
	}
}

// TestOutputIsOneLinePerMessage checks the framing of the answers: every
// response is exactly one line of compact JSON.
func TestOutputIsOneLinePerMessage(t *testing.T) {
	p := startCalc(t)
	p.send(t, `{"jsonrpc":"2.0","method":"sum","params":[1,2,3.5],"id":[1]}`)
	p.send(t, `{"jsonrpc":"2.0","method":"sum","params":[1,2,3.5],"id":7}`)
	for _, want := range []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`,
		`{"jsonrpc":"2.0","id":7,"result":6.5}`,
	} {
		if got := p.next(t); got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
	p.send(t, `{"jsonrpc":"2.0","method":"subtract","params":{"minuend":1},"id":8}`)
	got := p.next(t)
	var resp struct {
		ID    int
		Error struct{ Code int }
	}
	if err := json.Unmarshal([]byte(got), &resp); err != nil || resp.ID != 8 || resp.Error.Code != -32602 {
		t.Errorf("missing subtrahend: got %s, want -32602 for id 8", got)
	}
	if bytes.Contains([]byte(got), []byte("\n")) {
		t.Errorf("response spans lines: %q", got)
	}
}
