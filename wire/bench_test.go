package wire

import (
	"bufio"
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

// lineStream is an endless stream of the same newline-terminated frame,
// repeated enough times that each Read returns many frames when they are small.
func lineStream(size int) io.Reader {
	line := append(jsonLine(size), '\n')
	reps := 1 + (256<<10)/len(line)
	data := make([]byte, 0, reps*len(line))
	for i := 0; i < reps; i++ {
		data = append(data, line...)
	}
	return &loopReader{data: data}
}

func BenchmarkNewline(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(fmt.Sprintf("LineReader/%s", sizeName(size)), func(b *testing.B) {
			lr := NewLineReader(lineStream(size), 0)
			b.SetBytes(int64(size + 1))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := lr.ReadLine(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("bufio.Scanner/%s", sizeName(size)), func(b *testing.B) {
			sc := bufio.NewScanner(lineStream(size))
			sc.Buffer(make([]byte, 64<<10), DefaultMaxLine)
			b.SetBytes(int64(size + 1))
			b.ReportAllocs()
			for b.Loop() {
				if !sc.Scan() {
					b.Fatal(sc.Err())
				}
			}
		})
		b.Run(fmt.Sprintf("json.Decoder/%s", sizeName(size)), func(b *testing.B) {
			dec := json.NewDecoder(lineStream(size))
			var raw json.RawMessage
			b.SetBytes(int64(size + 1))
			b.ReportAllocs()
			for b.Loop() {
				if err := dec.Decode(&raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func frameStream(size int) io.Reader {
	frame := binary.BigEndian.AppendUint32(nil, uint32(size))
	frame = append(frame, jsonLine(size)...)
	reps := 1 + (256<<10)/len(frame)
	data := make([]byte, 0, reps*len(frame))
	for i := 0; i < reps; i++ {
		data = append(data, frame...)
	}
	return &loopReader{data: data}
}

func BenchmarkLengthPrefixed(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(fmt.Sprintf("FrameReader/%s", sizeName(size)), func(b *testing.B) {
			fr := NewFrameReader(frameStream(size), 0)
			b.SetBytes(int64(size + 4))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := fr.ReadFrame(); err != nil {
					b.Fatal(err)
				}
			}
		})
		// The floor: the header and body read with io.ReadFull into a
		// buffer allocated once, no checks, no read-ahead.
		b.Run(fmt.Sprintf("io.ReadFull/%s", sizeName(size)), func(b *testing.B) {
			src := frameStream(size)
			var header [4]byte
			buf := make([]byte, size)
			b.SetBytes(int64(size + 4))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := io.ReadFull(src, header[:]); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(src, buf[:binary.BigEndian.Uint32(header[:])]); err != nil {
					b.Fatal(err)
				}
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
