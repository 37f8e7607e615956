package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// FuzzLineReader checks the reader against a plain split of the same input:
// every line at most the cap comes out whole and in order, every longer one
// is reported with its exact length, and nothing else appears.
func FuzzLineReader(f *testing.F) {
	for _, seed := range []string{"", "a\n", "a\r\nb", "\n\n", "toolongline\nok\n", "x\r", "{\"type\":\"call\"}\n"} {
		f.Add([]byte(seed), uint8(4), false)
	}
	f.Fuzz(func(t *testing.T, input []byte, max uint8, oneByte bool) {
		lineCap := int(max%32) + 1
		var r io.Reader = bytes.NewReader(input)
		if oneByte {
			r = iotest.OneByteReader(r)
		}
		checkLines(t, NewLineReader(r, lineCap), input, lineCap, func() ([]byte, error) { return nil, nil })
	})
}

// FuzzLineReaderWouldBlock is FuzzLineReader over a non-blocking source
// that gives chunks of the sizes in pattern and ErrWouldBlock between them:
// the lines, and the lengths of the oversize ones, are the same as from a
// blocking source, wherever the source pauses.
func FuzzLineReaderWouldBlock(f *testing.F) {
	for _, seed := range []string{"", "a\n", "a\r\nb", "toolongline\nok\n", "waytoolonglinewaytoolong\nx\n"} {
		f.Add([]byte(seed), uint8(4), []byte{1, 3, 2})
	}
	f.Fuzz(func(t *testing.T, input []byte, max uint8, pattern []byte) {
		lineCap := int(max%32) + 1
		src := &pausingReader{data: input, pattern: pattern}
		lr := NewLineReader(src, lineCap)
		checkLines(t, lr, input, lineCap, func() ([]byte, error) {
			for pauses := 0; ; pauses++ {
				line, err := lr.ReadLine()
				if err != ErrWouldBlock {
					return line, err
				}
				if pauses > len(input)+1 {
					t.Fatalf("ReadLine keeps returning ErrWouldBlock at offset %d of %d", src.off, len(input))
				}
			}
		})
	})
}

// checkLines reads input's lines with next (lr.ReadLine when next returns
// nil, nil) and checks them against a plain split of input.
func checkLines(t *testing.T, lr *LineReader, input []byte, lineCap int, next func() ([]byte, error)) {
	t.Helper()
	read := func() ([]byte, error) {
		if line, err := next(); line != nil || err != nil {
			return line, err
		}
		return lr.ReadLine()
	}
	want := bytes.Split(input, []byte("\n"))
	if len(want[len(want)-1]) == 0 {
		want = want[:len(want)-1]
	}
	for i, w := range want {
		got, err := read()
		var tl *LineTooLongError
		if len(w) > lineCap {
			if !errors.As(err, &tl) || tl.Length != int64(len(w)) {
				t.Fatalf("line %d (%d bytes, cap %d): got %q, %v", i, len(w), lineCap, got, err)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, bytes.TrimSuffix(w, []byte("\r"))) {
			t.Fatalf("line %d: got %q, %v; want %q", i, got, err, w)
		}
	}
	if _, err := read(); err != io.EOF {
		t.Fatalf("after the last line: %v, want EOF", err)
	}
}

// pausingReader gives data in chunks of the sizes in pattern (cycled, each
// byte b a chunk of b%16+1 bytes), with ErrWouldBlock after every chunk.
type pausingReader struct {
	data    []byte
	off     int
	pattern []byte
	step    int
	paused  bool
}

func (r *pausingReader) Read(p []byte) (int, error) {
	if r.off == len(r.data) {
		return 0, io.EOF
	}
	if r.paused || len(r.pattern) == 0 {
		r.paused = false
		if len(r.pattern) == 0 {
			n := copy(p, r.data[r.off:])
			r.off += n
			return n, nil
		}
		return 0, ErrWouldBlock
	}
	size := int(r.pattern[r.step%len(r.pattern)])%16 + 1
	r.step++
	r.paused = true
	n := copy(p[:min(size, len(p))], r.data[r.off:])
	r.off += n
	return n, nil
}

// FuzzFrameReader never panics or over-allocates, and every frame it accepts
// is exactly what the stream's headers describe.
func FuzzFrameReader(f *testing.F) {
	f.Add(frameBytes("hello", "world"))
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add(frameBytes(""))
	f.Fuzz(func(t *testing.T, input []byte) {
		const max = 1 << 10
		fr := NewFrameReader(bytes.NewReader(input), max)
		rest := input
		for {
			p, err := fr.ReadFrame()
			if err != nil {
				switch {
				case err == io.EOF:
					if len(rest) != 0 {
						t.Fatalf("EOF with %d bytes left", len(rest))
					}
				case errors.Is(err, io.ErrUnexpectedEOF):
					if len(rest) == 0 || (len(rest) >= 4 && int(binary.BigEndian.Uint32(rest)) <= len(rest)-4) {
						t.Fatalf("unexpected EOF with a whole frame left: %x", rest)
					}
				case errors.Is(err, ErrTooLarge):
					if len(rest) < 4 || binary.BigEndian.Uint32(rest) <= max {
						t.Fatalf("too large for a frame that fits: %x", rest)
					}
				default:
					t.Fatal(err)
				}
				return
			}
			n := int(binary.BigEndian.Uint32(rest))
			if !bytes.Equal(p, rest[4:4+n]) {
				t.Fatalf("frame %q, want %q", p, rest[4:4+n])
			}
			rest = rest[4+n:]
		}
	})
}
