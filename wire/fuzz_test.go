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
		lr := NewLineReader(r, lineCap)
		want := bytes.Split(input, []byte("\n"))
		if len(want[len(want)-1]) == 0 {
			want = want[:len(want)-1]
		}
		for i, w := range want {
			got, err := lr.ReadLine()
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
		if _, err := lr.ReadLine(); err != io.EOF {
			t.Fatalf("after the last line: %v, want EOF", err)
		}
	})
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
