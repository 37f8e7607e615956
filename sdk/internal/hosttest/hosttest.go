// Package hosttest drives a language's solution host over pipes, frame by
// frame, and checks that it behaves as the Python host does
// (docs/protocol/judge.md): the same answers, codes and codec rules.
//
// Each language's test builds a solution (its sources in the language's
// testdata) exporting these functions, then calls Run:
//
//	add(a, b int64) int64          a + b
//	echo(v any) any                v unchanged (the language's generic value)
//	fail()                         throws the language's own exception
//	shout(s string) int64          prints "out:"+s to stdout and "err:"+s to stderr, returns len(s)
//	twice(x int64) int64           capability "double"(x) + 1
//	capcode(name string) string    calls capability name(); its error's wire code, or "ok"
package hosttest

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/codec"
	"github.com/tether-dev/tether/internal/testenv"
)

// RequireEnv makes a missing toolchain a failure instead of a skip (CI).
const RequireEnv = "TETHER_REQUIRE_LANGUAGES"

// Tool is the path of a toolchain program; without it the test is
// skipped, or fails under TETHER_REQUIRE_LANGUAGES=1.
func Tool(t testing.TB, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		err = fmt.Errorf("no %s on PATH (%s): %w", name, install, err)
	}
	testenv.Require(t, RequireEnv, err)
	return p
}

// Build runs argv in dir and fails the test with its output if it fails.
func Build(t testing.TB, dir string, env []string, argv ...string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
}

// WorkDir is a fresh work dir as the judge prepares one: the host's files
// (writeHost, the SDK's WriteTo) and testdata/name saved as source.
func WorkDir(t testing.TB, writeHost func(dir string) error, name, source string) string {
	t.Helper()
	dir := t.TempDir()
	if err := writeHost(dir); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, source), src, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// WithSource is argv (an SDK's Compile or Run) with the {source} argument
// replaced by source.
func WithSource(argv []string, source string) []string {
	out := slices.Clone(argv)
	for i, a := range out {
		if a == "{source}" {
			out[i] = source
		}
	}
	return out
}

// Compiled is WorkDir with the source then compiled by compile (an SDK's
// Compile, {source} standing for source), as the judge builds it.
func Compiled(t testing.TB, writeHost func(dir string) error, name, source string, compile []string) string {
	t.Helper()
	dir := WorkDir(t, writeHost, name, source)
	Build(t, dir, nil, WithSource(compile, source)...)
	return dir
}

// Lang describes what differs between languages in the shared checks.
type Lang struct {
	// Command starts the host (in Dir).
	Command []string
	Dir     string
	// ExceptionPrefix starts the message of fail()'s Exception answer: the
	// exception's class name, "std::runtime_error: " for example.
	ExceptionPrefix string
	// Typed: arguments that do not fit the parameters' types (or their
	// number) are answered Rejected.
	Typed bool
	// LooseNumbers: the language has one number type, so a float with an
	// integral value comes back as an integer (JavaScript).
	LooseNumbers bool
}

// Host is one running host process.
type Host struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan []byte
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
	h := &Host{t: t, cmd: cmd, in: in, lines: make(chan []byte, 1024), done: make(chan struct{})}
	go func() {
		r := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				h.lines <- bytes.TrimRight(line, "\n")
			}
			if err != nil {
				close(h.lines)
				return
			}
		}
	}()
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
		go func() { // unread output must not block the reader
			for range h.lines {
			}
		}()
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

// NextLine is the host's next output line; the test fails if none comes
// within 20 s (a generous bound for a loaded machine, not a hand-off).
func (h *Host) NextLine() []byte {
	h.t.Helper()
	select {
	case l, ok := <-h.lines:
		if !ok {
			h.t.Fatalf("host closed its stdout")
		}
		return l
	case <-time.After(20 * time.Second):
		h.t.Fatalf("no frame from the host in 20 s")
	}
	return nil
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

// Run runs every shared check against the host l starts.
func Run(t *testing.T, l Lang) {
	t.Run("call", func(t *testing.T) { testCall(t, l) })
	t.Run("not-found", func(t *testing.T) { testNotFound(t, l) })
	t.Run("exception", func(t *testing.T) { testException(t, l) })
	t.Run("prints", func(t *testing.T) { testPrints(t, l) })
	t.Run("capability", func(t *testing.T) { testCapability(t, l) })
	t.Run("hostile", func(t *testing.T) { testHostile(t, l) })
	t.Run("vectors", func(t *testing.T) { testVectors(t, l) })
	t.Run("eof", func(t *testing.T) { testEOF(t, l) })
}

func testCall(t *testing.T, l Lang) {
	h := Start(t, l)
	h.Call("c1", "add", 1, 2)
	if f := h.Expect("c1", "result", ""); fmt.Sprint(f["value"]) != "3" {
		t.Fatalf("add(1, 2) = %v", f["value"])
	}
	// Several calls in flight are answered, each by its id.
	want := map[string]string{}
	for i := 0; i < 100; i++ {
		h.Call(fmt.Sprintf("m%d", i), "add", i, 1000)
		want[fmt.Sprintf("m%d", i)] = fmt.Sprint(i + 1000)
	}
	for id, f := range h.ExpectAll(len(want)) {
		if f["type"] != "result" || fmt.Sprint(f["value"]) != want[id] {
			t.Fatalf("answer %v, want result %s", f, want[id])
		}
	}
	if l.Typed {
		h.Call("c2", "add", 1)
		h.Expect("c2", "error", "Rejected")
		h.Call("c3", "add", 1, "x")
		h.Expect("c3", "error", "Rejected")
	}
}

func testNotFound(t *testing.T, l Lang) {
	h := Start(t, l)
	h.Call("n1", "nope")
	f := h.Expect("n1", "error", "NotFound")
	if f["message"] != "function 'nope' not registered" {
		t.Fatalf("message %q, want the Python host's text", f["message"])
	}
}

func testException(t *testing.T, l Lang) {
	h := Start(t, l)
	h.Call("e1", "fail")
	f := h.Expect("e1", "error", "Exception")
	msg, _ := f["message"].(string)
	if !strings.HasPrefix(msg, l.ExceptionPrefix) {
		t.Fatalf("message %q, want it to start with the exception's class %q", msg, l.ExceptionPrefix)
	}
	// The host keeps serving.
	h.Call("e2", "add", 2, 3)
	h.Expect("e2", "result", "")
}

func testPrints(t *testing.T, l Lang) {
	h := Start(t, l)
	for i := 0; i < 3; i++ {
		id := fmt.Sprintf("p%d", i)
		word := fmt.Sprintf("word%d", i)
		h.Call(id, "shout", word)
		f, logs := h.Answer()
		if f["id"] != id || f["type"] != "result" || fmt.Sprint(f["value"]) != fmt.Sprint(len(word)) {
			t.Fatalf("shout answer %v", f)
		}
		var out, errs string
		for _, lf := range logs {
			switch lf["stream"] {
			case "stdout":
				out += lf["data"].(string)
			case "stderr":
				errs += lf["data"].(string)
			default:
				t.Fatalf("log frame with stream %v", lf["stream"])
			}
		}
		if !strings.Contains(out, "out:"+word) || !strings.Contains(errs, "err:"+word) {
			t.Fatalf("logs before the answer: stdout %q stderr %q, want out:%s and err:%s", out, errs, word, word)
		}
	}
	h.Call("p9", "add", 1, 1)
	h.Expect("p9", "result", "")
}

func testCapability(t *testing.T, l Lang) {
	h := Start(t, l)
	h.Call("k1", "twice", 20)
	f := h.Next()
	if f["type"] != "capability" || f["name"] != "double" {
		t.Fatalf("got %v, want a capability frame for double", f)
	}
	id, _ := f["id"].(string)
	if id == "" || len(id) > 1024 {
		t.Fatalf("capability id %q", id)
	}
	if args, _ := f["args"].([]any); len(args) != 1 || fmt.Sprint(args[0]) != "20" {
		t.Fatalf("capability args %v", f["args"])
	}
	// A call arriving while the capability is pending waits its turn.
	h.Call("k2", "add", 1, 1)
	h.Send(fmt.Sprintf(`{"type":"result","id":%q,"value":40}`, id))
	got := h.ExpectAll(2) // a host running calls concurrently may answer k2 first
	if f := got["k1"]; f["type"] != "result" || fmt.Sprint(f["value"]) != "41" {
		t.Fatalf("twice(20): %v, want 41", f)
	}
	if f := got["k2"]; f["type"] != "result" {
		t.Fatalf("add(1, 1) during a capability: %v", f)
	}

	h.Call("k3", "capcode", "missing")
	f = h.Next()
	if f["type"] != "capability" || f["name"] != "missing" {
		t.Fatalf("got %v, want a capability frame for missing", f)
	}
	h.Send(fmt.Sprintf(`{"type":"error","id":%q,"code":"NotFound","message":"capability 'missing' not registered"}`, f["id"]))
	if f := h.Expect("k3", "result", ""); f["value"] != "NotFound" {
		t.Fatalf("capability error code seen by the solution: %v, want NotFound", f["value"])
	}
	// An answer the codec refuses fails the capability as Rejected.
	h.Call("k4", "capcode", "nan")
	f = h.Next()
	h.Send(fmt.Sprintf(`{"type":"result","id":%q,"value":NaN}`, f["id"]))
	if f := h.Expect("k4", "result", ""); f["value"] != "Rejected" {
		t.Fatalf("capability answered NaN: the solution saw %v, want Rejected", f["value"])
	}
	// stdin EOF while waiting: a connection error, never a hang.
	h.Call("k5", "capcode", "never")
	if f := h.Next(); f["type"] != "capability" {
		t.Fatalf("got %v, want a capability frame", f)
	}
	h.Wait()
}

func testHostile(t *testing.T, l Lang) {
	h := Start(t, l)
	huge := strings.Repeat("x", 5<<20)
	h.Send(
		"plain text",
		"",
		"{}",
		"[1,2,3]",
		`{"type":"call"}`,
		`{"type":"call","id":"","fn":"add","args":[1,2]}`,
		`{"type":"call","id":7,"fn":"add","args":[1,2]}`,
		`{"type":"result","id":"nobody","value":1}`,
		`{"type":"nonsense","id":"z"}`,
		`{"type":"call","id":"h1","fn":"add","args":[1,2]`, // not JSON: ignored
		`{"type":"call","id":"big","fn":"add","args":["`+huge+`"]}`,
		huge,
		`{"type":"call","id":"h2","fn":7,"args":[]}`,
		`{"type":"call","id":"h3","fn":"add","args":{"a":1}}`,
		`{"type":"call","id":"h4","fn":"add","args":[1,NaN]}`,
		`{"type":"call","id":"h5","fn":"add","args":[1,2],"id":"h5b"}`,
		`{"type":"call","id":"h6","fn":"echo","args":[{"a":1,"a":2}]}`,
		"\xff\xfe{garbage",
		`{"type":"call","id":"h7","fn":"add","args":[1,2]}`,
	)
	got := h.ExpectAll(6) // any order: a host may run calls concurrently
	want := map[string]string{"h2": "NotFound", "h3": "Rejected", "h4": "Rejected", "h5b": "Rejected", "h6": "Rejected", "h7": ""}
	for id, code := range want {
		f, ok := got[id]
		if !ok || (code == "" && f["type"] != "result") || (code != "" && f["code"] != code) {
			t.Fatalf("answer to %s: %v, want %s", id, f, code)
		}
	}
	// h5b: a repeated member is refused by the codec and answered by the last id (Python host).
	if !strings.Contains(fmt.Sprint(got["h4"]["message"]), "NaN") {
		t.Fatalf("NaN argument: %v", got["h4"]["message"])
	}
	if !strings.Contains(fmt.Sprint(got["h6"]["message"]), "duplicate key") {
		t.Fatalf("duplicate key: %v", got["h6"]["message"])
	}
	// An answer over 1 MiB is refused with the protocol's text.
	big := strings.Repeat("y", 1<<20)
	h.Call("h8", "echo", big)
	if f := h.Expect("h8", "error", "Rejected"); !strings.HasPrefix(fmt.Sprint(f["message"]), "frame size ") {
		t.Fatalf("oversize answer: %v", f["message"])
	}
	h.Call("h9", "add", 4, 5)
	h.Expect("h9", "result", "")
}

func testEOF(t *testing.T, l Lang) {
	h := Start(t, l)
	h.Call("q1", "add", 1, 2)
	h.in.Close()
	h.Expect("q1", "result", "")
	h.Wait()
}

type vector struct {
	Name        string  `json:"name"`
	Wire        *string `json:"wire"`
	WireHex     *string `json:"wire_hex"`
	DecodeError *string `json:"decode_error"`
}

// testVectors sends every decodable input of testdata/codec/vectors.json
// through echo: the answer must be what the Go codec makes of the same
// frame (a result whose value is the canonical encoding, or Rejected), and
// a frame that is not JSON at all gets no answer, as from the Python host.
func testVectors(t *testing.T, l Lang) {
	_, file, _, _ := runtime.Caller(0)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "codec", "vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Cases []vector }
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	h := Start(t, l)
	checked := 0
	for i, c := range doc.Cases {
		var wire []byte
		switch {
		case c.Wire != nil:
			wire = []byte(*c.Wire)
		case c.WireHex != nil:
			if wire, err = hex.DecodeString(*c.WireHex); err != nil {
				t.Fatal(err)
			}
		default:
			continue // an encode-only case
		}
		if len(bytes.TrimSpace(wire)) == 0 || bytes.ContainsAny(wire, "\n\r") {
			continue // not a value inside args / not one line
		}
		id := fmt.Sprintf("v%d", i)
		line := append([]byte(`{"type":"call","id":"`+id+`","fn":"echo","args":[`), wire...)
		line = append(line, "]}"...)
		h.Send(string(line))
		v, decodeErr := codec.Unmarshal(line)
		var syntax *codec.SyntaxError
		switch {
		case decodeErr == nil:
			want, err := codec.Marshal(v.(map[string]any)["args"].([]any)[0])
			if err != nil {
				t.Fatal(err)
			}
			got := h.NextLine()
			wantLine := `{"type":"result","id":"` + id + `","value":` + string(want) + `}`
			if string(got) != wantLine && !(l.LooseNumbers && sameLoosely(got, want)) {
				t.Errorf("vector %q: host answered\n%s\nwant\n%s", c.Name, clip(got), clip([]byte(wantLine)))
			}
		case asSyntax(decodeErr, &syntax):
			// Not JSON: the host must ignore it; the next answer is the sentinel's.
			h.Call(id+"s", "add", 0, 0)
			h.Expect(id+"s", "result", "")
		default:
			f := h.Expect(id, "error", "Rejected")
			if c.DecodeError != nil && strings.Contains(decodeErr.Error(), *c.DecodeError) &&
				!strings.Contains(fmt.Sprint(f["message"]), *c.DecodeError) {
				t.Errorf("vector %q: message %q, want it to contain %q", c.Name, f["message"], *c.DecodeError)
			}
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("only %d vectors checked", checked)
	}
}

func asSyntax(err error, target **codec.SyntaxError) bool { return errors.As(err, target) }

// sameLoosely: got is a result whose value equals want when integers and
// floats of the same value count as equal.
func sameLoosely(got, want []byte) bool {
	f, err := codec.Unmarshal(got)
	if err != nil {
		return false
	}
	m, ok := f.(map[string]any)
	if !ok {
		return false
	}
	w, err := codec.Unmarshal(want)
	if err != nil {
		return false
	}
	return looseEqual(m["value"], w)
}

func looseEqual(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	switch a := a.(type) {
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !looseEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			if !looseEqual(v, b[k]) {
				return false
			}
		}
		return true
	case []byte:
		b, ok := b.([]byte)
		return ok && bytes.Equal(a, b)
	}
	return a == b
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	case *big.Int:
		f, _ := new(big.Float).SetInt(v).Float64()
		return f, true
	}
	return 0, false
}
