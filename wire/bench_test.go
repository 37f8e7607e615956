package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

var benchSizes = []int{100, 64 << 10, 1 << 20}

// jsonLine is a JSON object of exactly size bytes, so that json.Decoder
// has a fair frame to read.
func jsonLine(size int) []byte {
	return []byte(`{"d":"` + strings.Repeat("x", size-8) + `"}`)
}

// repeatStream is an endless stream of the same frame, repeated enough
// times that each Read returns many frames when they are small.
func repeatStream(frame []byte) io.Reader {
	return &loopReader{data: bytes.Repeat(frame, 1+(256<<10)/len(frame))}
}

// lineStream repeats a newline-terminated JSON line of size bytes.
func lineStream(size int) io.Reader { return repeatStream(append(jsonLine(size), '\n')) }

// benchRead benchmarks name at size: open makes a reader, whose every
// call reads one frame of n bytes.
func benchRead(b *testing.B, name string, size, n int, open func() func() error) {
	b.Run(fmt.Sprintf("%s/%s", name, sizeName(size)), func(b *testing.B) {
		read := open()
		b.SetBytes(int64(n))
		b.ReportAllocs()
		for b.Loop() {
			if err := read(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkNewline(b *testing.B) {
	for _, size := range benchSizes {
		benchRead(b, "LineReader", size, size+1, func() func() error {
			lr := NewLineReader(lineStream(size), 0)
			return func() error { _, err := lr.ReadLine(); return err }
		})
		benchRead(b, "bufio.Scanner", size, size+1, func() func() error {
			sc := bufio.NewScanner(lineStream(size))
			sc.Buffer(make([]byte, 64<<10), DefaultMaxLine)
			return func() error {
				if !sc.Scan() {
					return fmt.Errorf("scan: %v", sc.Err())
				}
				return nil
			}
		})
		benchRead(b, "json.Decoder", size, size+1, func() func() error {
			dec := json.NewDecoder(lineStream(size))
			var raw json.RawMessage
			return func() error { return dec.Decode(&raw) }
		})
	}
}

// frameStream repeats a length-prefixed JSON frame of size bytes.
func frameStream(size int) io.Reader {
	return repeatStream(append(binary.BigEndian.AppendUint32(nil, uint32(size)), jsonLine(size)...))
}

func BenchmarkLengthPrefixed(b *testing.B) {
	for _, size := range benchSizes {
		benchRead(b, "FrameReader", size, size+4, func() func() error {
			fr := NewFrameReader(frameStream(size), 0)
			return func() error { _, err := fr.ReadFrame(); return err }
		})
		// The floor: the header and body read with io.ReadFull into a
		// buffer allocated once, no checks, no read-ahead.
		benchRead(b, "io.ReadFull", size, size+4, func() func() error {
			src := frameStream(size)
			var header [4]byte
			buf := make([]byte, size)
			return func() error {
				if _, err := io.ReadFull(src, header[:]); err != nil {
					return err
				}
				_, err := io.ReadFull(src, buf[:binary.BigEndian.Uint32(header[:])])
				return err
			}
		})
	}
}

func BenchmarkWriters(b *testing.B) {
	for _, size := range benchSizes {
		p := jsonLine(size)
		b.Run(fmt.Sprintf("LineWriter/%s", sizeName(size)), func(b *testing.B) {
			lw := NewLineWriter(io.Discard)
			b.SetBytes(int64(size + 1))
			b.ReportAllocs()
			for b.Loop() {
				lw.WriteLine(p)
			}
		})
		b.Run(fmt.Sprintf("FrameWriter/%s", sizeName(size)), func(b *testing.B) {
			fw := NewFrameWriter(io.Discard, 0)
			b.SetBytes(int64(size + 4))
			b.ReportAllocs()
			for b.Loop() {
				fw.WriteFrame(p)
			}
		})
	}
}

func sizeName(size int) string {
	switch {
	case size >= 1<<20:
		return fmt.Sprintf("%dMiB", size>>20)
	case size >= 1<<10:
		return fmt.Sprintf("%dKiB", size>>10)
	}
	return fmt.Sprintf("%dB", size)
}
