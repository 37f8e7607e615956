package wire

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll collects every line and every error until io.EOF, copying lines
// because ReadLine's slices are only valid until the next call.
func readAll(t *testing.T, lr *LineReader) (lines []string, tooLong []*LineTooLongError) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		line, err := lr.ReadLine()
		var tl *LineTooLongError
		switch {
		case err == nil:
			lines = append(lines, string(line))
		case errors.As(err, &tl):
			tooLong = append(tooLong, tl)
		case errors.Is(err, io.EOF):
			return lines, tooLong
		default:
			t.Fatalf("ReadLine: unexpected error %v", err)
		}
	}
	t.Fatal("ReadLine never reached EOF")
	return nil, nil
}

func TestLineReader(t *testing.T) {
	cases := []struct {
		name    string
		input   string
		max     int
		lines   []string
		tooLong []int64 // lengths of skipped lines, in order
	}{
		{name: "empty stream", input: "", lines: nil},
		{name: "one line", input: "a\n", lines: []string{"a"}},
		{name: "final line without newline", input: "a\nb", lines: []string{"a", "b"}},
		{name: "CRLF", input: "a\r\nb\r\n", lines: []string{"a", "b"}},
		{name: "lone CR kept inside", input: "a\rb\n", lines: []string{"a\rb"}},
		{name: "final CR without newline", input: "a\r", lines: []string{"a"}},
		{name: "empty lines kept", input: "\n\nx\n", lines: []string{"", "", "x"}},
		{name: "exactly the cap", input: "12345\n", max: 5, lines: []string{"12345"}},
		{name: "over the cap then a normal line", input: "123456\nok\n", max: 5, lines: []string{"ok"}, tooLong: []int64{6}},
		{name: "over the cap at the end", input: "ok\n1234567890", max: 5, lines: []string{"ok"}, tooLong: []int64{10}},
		{name: "two oversize in a row", input: "1234567\n12345678\nz\n", max: 5, lines: []string{"z"}, tooLong: []int64{7, 8}},
		{name: "CR counts toward length", input: "12345\r\n", max: 5, lines: nil, tooLong: []int64{6}},
	}
	for _, tc := range cases {
		for rname, wrap := range chunkings {
			t.Run(tc.name+"/"+rname, func(t *testing.T) {
				lines, tooLong := readAll(t, NewLineReader(wrap(strings.NewReader(tc.input)), tc.max))
				if !equalStrings(lines, tc.lines) {
					t.Errorf("lines = %q, want %q", lines, tc.lines)
				}
				if len(tooLong) != len(tc.tooLong) {
					t.Fatalf("%d lines too long, want %d", len(tooLong), len(tc.tooLong))
				}
				for i, tl := range tooLong {
					if tl.Length != tc.tooLong[i] || tl.Max != tc.max {
						t.Errorf("too long #%d: length %d max %d, want %d and %d", i, tl.Length, tl.Max, tc.tooLong[i], tc.max)
					}
					if !errors.Is(tl, ErrTooLarge) {
						t.Errorf("too long #%d does not match ErrTooLarge", i)
					}
				}
			})
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestLineTooLongKeepsHead(t *testing.T) {
	line := `{"type":"call","id":"abc","args":["` + strings.Repeat("x", 5000) + `"]}`
	lr := NewLineReader(strings.NewReader(line+"\nnext\n"), 1024)
	_, err := lr.ReadLine()
	var tl *LineTooLongError
	if !errors.As(err, &tl) {
		t.Fatalf("err = %v, want *LineTooLongError", err)
	}
	if tl.Length != int64(len(line)) {
		t.Errorf("Length = %d, want %d", tl.Length, len(line))
	}
	if len(tl.Head) != headLen || !bytes.HasPrefix([]byte(line), tl.Head) {
		t.Errorf("Head = %q, want the first %d bytes of the line", tl.Head, headLen)
	}
	next, err := lr.ReadLine()
	if err != nil || string(next) != "next" {
		t.Fatalf("after the oversize line: %q, %v; want \"next\"", next, err)
	}
}

func TestLineReaderDefaultCap(t *testing.T) {
	if lr := NewLineReader(strings.NewReader(""), 0); lr.max != DefaultMaxLine {
		t.Fatalf("max = %d, want %d", lr.max, DefaultMaxLine)
	}
}

func TestLineReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	lr := NewLineReader(io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom)), 0)
	lines := []string{}
	var err error
	for {
		var line []byte
		line, err = lr.ReadLine()
		if err != nil {
			break
		}
		lines = append(lines, string(line))
	}
	if !equalStrings(lines, []string{"a", "b"}) || !errors.Is(err, boom) {
		t.Fatalf("lines %q, err %v; want [a b] then boom", lines, err)
	}
	if _, again := lr.ReadLine(); !errors.Is(again, boom) {
		t.Fatalf("second error = %v, want boom again", again)
	}
}

// repeatReader yields n bytes of c without holding them.
type repeatReader struct {
	c byte
	n int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.n {
		p = p[:r.n]
	}
	for i := range p {
		p[i] = r.c
	}
	r.n -= int64(len(p))
	return len(p), nil
}

// A 100 MiB line must cost no more than the cap: the reader may grow its
// buffer to the cap once, and nothing after that.
func TestHugeLineMemoryBoundedByCap(t *testing.T) {
	const size = 100 << 20
	const lineCap = 1 << 20
	input := io.MultiReader(&repeatReader{c: 'x', n: size}, strings.NewReader("\nafter\n"))
	lr := NewLineReader(input, lineCap)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := lr.ReadLine()
	runtime.ReadMemStats(&after)

	var tl *LineTooLongError
	if !errors.As(err, &tl) || tl.Length != size {
		t.Fatalf("err = %v, want a *LineTooLongError of %d bytes", err, size)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 2*lineCap {
		t.Fatalf("reading a %d-byte line allocated %d bytes; the cap is %d", size, allocated, lineCap)
	}
	if cap(lr.buf) > lineCap+1 {
		t.Fatalf("buffer grew to %d bytes; the cap is %d", cap(lr.buf), lineCap)
	}
	line, err := lr.ReadLine()
	if err != nil || string(line) != "after" {
		t.Fatalf("line after the huge one = %q, %v", line, err)
	}
}

func TestLineReaderSteadyStateAllocatesNothing(t *testing.T) {
	payload := []byte(strings.Repeat("y", 200) + "\n")
	src := &loopReader{data: bytes.Repeat(payload, 64)}
	expectNoSteadyAllocs(t, "ReadLine", NewLineReader(src, 0).ReadLine)
}

// expectNoSteadyAllocs fails unless read, called again and again after a
// first call that sizes its buffer, allocates nothing.
func expectNoSteadyAllocs(t *testing.T, what string, read func() ([]byte, error)) {
	t.Helper()
	read()
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := read(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%s allocates %.1f times per frame in steady state, want 0", what, allocs)
	}
}

// loopReader serves data over and over, never EOF.
type loopReader struct {
	data []byte
	off  int
}

func (r *loopReader) Read(p []byte) (int, error) {
	n := copy(p, r.data[r.off:])
	r.off = (r.off + n) % len(r.data)
	return n, nil
}

func TestLineReaderReset(t *testing.T) {
	lr := NewLineReader(strings.NewReader("a\npartial"), 0)
	lr.ReadLine()
	lr.Reset(strings.NewReader("b\n"))
	line, err := lr.ReadLine()
	if err != nil || string(line) != "b" {
		t.Fatalf("after Reset: %q, %v", line, err)
	}
}

func TestLineReaderStalledReader(t *testing.T) {
	lr := NewLineReader(iotest.ErrReader(nil), 0) // returns 0, nil forever
	if _, err := lr.ReadLine(); !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("err = %v, want io.ErrNoProgress", err)
	}
}

func TestLineReaderBuffered(t *testing.T) {
	lr := NewLineReader(iotest.OneByteReader(strings.NewReader("")), 0)
	if n := lr.Buffered(); n != 0 {
		t.Fatalf("new reader: Buffered %d", n)
	}
	lr.Reset(strings.NewReader("ab\ncd\nef"))
	want := []struct {
		line     string
		buffered int
	}{{"ab", 5}, {"cd", 2}, {"ef", 0}}
	for _, w := range want {
		line, err := lr.ReadLine()
		if err != nil || string(line) != w.line {
			t.Fatalf("ReadLine: %q, %v; want %q", line, err, w.line)
		}
		if n := lr.Buffered(); n != w.buffered {
			t.Fatalf("after %q: Buffered %d, want %d", w.line, n, w.buffered)
		}
	}
}

// chunkings are the ways the readers' tests deliver their input: whole, a
// byte at a time, half of each request, and the last data with io.EOF.
var chunkings = map[string]func(io.Reader) io.Reader{
	"plain":    func(r io.Reader) io.Reader { return r },
	"one byte": iotest.OneByteReader,
	"half":     iotest.HalfReader,
	"data+EOF": iotest.DataErrReader,
}
