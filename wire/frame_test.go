package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func frameBytes(payloads ...string) []byte {
	var b []byte
	for _, p := range payloads {
		b = binary.BigEndian.AppendUint32(b, uint32(len(p)))
		b = append(b, p...)
	}
	return b
}

func TestFrameReader(t *testing.T) {
	cases := []struct {
		name    string
		input   []byte
		max     int
		frames  []string
		wantErr error // the error after the frames
	}{
		{name: "clean EOF", input: nil, wantErr: io.EOF},
		{name: "one frame", input: frameBytes(`{"a":1}`), frames: []string{`{"a":1}`}, wantErr: io.EOF},
		{name: "empty payload", input: frameBytes(""), frames: []string{""}, wantErr: io.EOF},
		{name: "several", input: frameBytes("one", "two", "three"), frames: []string{"one", "two", "three"}, wantErr: io.EOF},
		{name: "3-byte header then close", input: []byte{0, 0, 0}, wantErr: io.ErrUnexpectedEOF},
		{name: "truncated body", input: frameBytes("hello")[:6], wantErr: io.ErrUnexpectedEOF},
		{name: "header only", input: frameBytes("hello")[:4], wantErr: io.ErrUnexpectedEOF},
		{name: "frame then truncated", input: append(frameBytes("ok"), 0, 0, 0, 9, 'x'), frames: []string{"ok"}, wantErr: io.ErrUnexpectedEOF},
		{name: "exactly the maximum", input: frameBytes("12345"), max: 5, frames: []string{"12345"}, wantErr: io.EOF},
		{name: "declared length over the maximum", input: frameBytes("123456"), max: 5, wantErr: ErrTooLarge},
	}
	for _, tc := range cases {
		for rname, wrap := range chunkings {
			t.Run(tc.name+"/"+rname, func(t *testing.T) {
				fr := NewFrameReader(wrap(bytes.NewReader(tc.input)), tc.max)
				var got []string
				var err error
				for {
					var p []byte
					if p, err = fr.ReadFrame(); err != nil {
						break
					}
					got = append(got, string(p))
				}
				if !equalStrings(got, tc.frames) {
					t.Errorf("frames = %q, want %q", got, tc.frames)
				}
				if !errors.Is(err, tc.wantErr) {
					t.Errorf("err = %v, want %v", err, tc.wantErr)
				}
				if tc.wantErr == io.ErrUnexpectedEOF && errors.Is(err, io.EOF) {
					t.Errorf("a truncated frame must not look like a clean EOF: %v", err)
				}
				if _, again := fr.ReadFrame(); !errors.Is(again, tc.wantErr) {
					t.Errorf("second call err = %v, want the same %v", again, tc.wantErr)
				}
			})
		}
	}
}

// A declared length over the maximum is refused before anything is read or
// allocated for it: a 4 GiB claim costs no more than the reader itself.
func TestFrameReaderOversizeAllocatesNothing(t *testing.T) {
	input := []byte{0xff, 0xff, 0xff, 0xff}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < 100; i++ {
		fr := NewFrameReader(bytes.NewReader(input), 1<<20)
		if _, err := fr.ReadFrame(); !errors.Is(err, ErrTooLarge) {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if perRead := (after.TotalAlloc - before.TotalAlloc) / 100; perRead > 2*readBuffer {
		t.Fatalf("refusing an oversize frame allocated %d bytes per reader", perRead)
	}
	var tl *FrameTooLargeError
	_, err := NewFrameReader(bytes.NewReader(input), 1<<20).ReadFrame()
	if !errors.As(err, &tl) || tl.Length != 0xffffffff || tl.Max != 1<<20 {
		t.Fatalf("err = %#v, want FrameTooLargeError{4294967295, 1048576}", err)
	}
}

func TestFrameReaderSteadyStateAllocatesNothing(t *testing.T) {
	fr := NewFrameReader(&loopReader{data: frameBytes(strings.Repeat("z", 300))}, 0)
	expectNoSteadyAllocs(t, "ReadFrame", fr.ReadFrame)
}

// countingWriter records each Write call separately.
type countingWriter struct {
	mu     sync.Mutex
	writes [][]byte
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, append([]byte(nil), p...))
	return len(p), nil
}

func TestFrameWriterOneWritePerFrame(t *testing.T) {
	var cw countingWriter
	fw := NewFrameWriter(&cw, 0)
	big := strings.Repeat("b", 100<<10)
	for _, p := range []string{"", "x", big} {
		if err := fw.WriteFrame([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if len(cw.writes) != 3 {
		t.Fatalf("%d writes for 3 frames", len(cw.writes))
	}
	fr := NewFrameReader(bytes.NewReader(bytes.Join(cw.writes, nil)), 0)
	for _, want := range []string{"", "x", big} {
		got, err := fr.ReadFrame()
		if err != nil || string(got) != want {
			t.Fatalf("read back %d bytes, %v; want %d bytes", len(got), err, len(want))
		}
	}
}

func TestFrameWriterRefusesOversize(t *testing.T) {
	var cw countingWriter
	err := NewFrameWriter(&cw, 3).WriteFrame([]byte("four"))
	var tl *FrameTooLargeError
	if !errors.As(err, &tl) || tl.Length != 4 || tl.Max != 3 || len(cw.writes) != 0 {
		t.Fatalf("err = %v, writes = %d; want FrameTooLargeError and nothing written", err, len(cw.writes))
	}
}

func TestLineWriter(t *testing.T) {
	var cw countingWriter
	lw := NewLineWriter(&cw)
	if err := lw.WriteLine([]byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := lw.WriteLine([]byte("two\nlines")); !errors.Is(err, ErrNewline) {
		t.Fatalf("err = %v, want ErrNewline", err)
	}
	big := bytes.Repeat([]byte("q"), 200<<10)
	if err := lw.WriteLine(big); err != nil {
		t.Fatal(err)
	}
	if len(cw.writes) != 2 || string(cw.writes[0]) != "{\"a\":1}\n" || !bytes.Equal(cw.writes[1], append(big, '\n')) {
		t.Fatalf("writes = %d, first %q", len(cw.writes), cw.writes[0])
	}
	if cap(lw.spare) > keepWriteBuffer || cap(lw.queued) > keepWriteBuffer {
		t.Fatalf("kept a %d-byte buffer after a large frame", max(cap(lw.spare), cap(lw.queued)))
	}
}

type flushWriter struct {
	countingWriter
	flushes int
}

func (f *flushWriter) Flush() error { f.flushes++; return nil }

func TestLineWriterFlushes(t *testing.T) {
	var fw flushWriter
	lw := NewLineWriter(&fw)
	lw.WriteLine([]byte("a"))
	lw.WriteLine([]byte("b"))
	if fw.flushes != 2 {
		t.Fatalf("%d flushes for 2 lines", fw.flushes)
	}
}

// Concurrent writers never interleave inside a frame, over a real pipe.
func TestWritersConcurrentOverPipe(t *testing.T) {
	for _, framing := range []string{"line", "frame"} {
		t.Run(framing, func(t *testing.T) {
			pr, pw := io.Pipe()
			const writers, each = 8, 200
			write := func(p []byte) error { return NewLineWriter(pw).WriteLine(p) }
			if framing == "frame" {
				fw := NewFrameWriter(pw, 0)
				write = fw.WriteFrame
			} else {
				lw := NewLineWriter(pw)
				write = lw.WriteLine
			}
			var wg sync.WaitGroup
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					p := bytes.Repeat([]byte{byte('a' + w)}, 1000+w)
					for i := 0; i < each; i++ {
						if err := write(p); err != nil {
							t.Error(err)
							return
						}
					}
				}(w)
			}
			go func() { wg.Wait(); pw.Close() }()
			read := NewLineReader(pr, 0).ReadLine
			if framing == "frame" {
				read = NewFrameReader(pr, 0).ReadFrame
			}
			count := 0
			for {
				p, err := read()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(p) < 1000 || !bytes.Equal(p, bytes.Repeat(p[:1], len(p))) || len(p) != 1000+int(p[0]-'a') {
					t.Fatalf("frame %d is interleaved or cut (%d bytes)", count, len(p))
				}
				count++
			}
			if count != writers*each {
				t.Fatalf("read %d frames, want %d", count, writers*each)
			}
		})
	}
}

func TestFrameReaderSkipOversize(t *testing.T) {
	big := "HEAD" + strings.Repeat("0123456789", 100) // 1004 bytes: the head is its first 512
	small := strings.Repeat("s", 20)                  // over the cap but shorter than a head
	input := frameBytes("ok", big, small, "next")
	for rname, wrap := range chunkings {
		t.Run(rname, func(t *testing.T) {
			fr := NewFrameReader(wrap(bytes.NewReader(input)), 16)
			if _, err := fr.SkipOversize(); err == nil {
				t.Error("SkipOversize with nothing to skip = nil error")
			}
			if p, err := fr.ReadFrame(); err != nil || string(p) != "ok" {
				t.Fatalf("first frame %q, %v", p, err)
			}
			for _, want := range []string{big, small} {
				var tl *FrameTooLargeError
				if _, err := fr.ReadFrame(); !errors.As(err, &tl) || tl.Length != uint64(len(want)) {
					t.Fatalf("ReadFrame = %v, want FrameTooLargeError of %d bytes", err, len(want))
				}
				head, err := fr.SkipOversize()
				if err != nil || string(head) != want[:min(len(want), 512)] {
					t.Fatalf("SkipOversize = %q, %v", head, err)
				}
			}
			if p, err := fr.ReadFrame(); err != nil || string(p) != "next" {
				t.Fatalf("frame after the skipped ones %q, %v", p, err)
			}
			if _, err := fr.ReadFrame(); err != io.EOF {
				t.Fatalf("end = %v, want io.EOF", err)
			}
			if _, err := fr.SkipOversize(); err != io.EOF {
				t.Errorf("SkipOversize after the end = %v, want the sticky io.EOF", err)
			}
		})
	}
}

func TestFrameReaderSkipOversizeCutByEOF(t *testing.T) {
	full := frameBytes(strings.Repeat("x", 1000))
	for _, cut := range []int{4, 4 + 100, 4 + 512, 4 + 600, len(full) - 1} {
		fr := NewFrameReader(bytes.NewReader(full[:cut]), 16)
		if _, err := fr.ReadFrame(); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("cut %d: ReadFrame = %v", cut, err)
		}
		_, err := fr.SkipOversize()
		if !errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			t.Errorf("cut %d: SkipOversize = %v, want io.ErrUnexpectedEOF", cut, err)
		}
		if _, again := fr.ReadFrame(); again != err {
			t.Errorf("cut %d: ReadFrame after the failed skip = %v, want the same %v", cut, again, err)
		}
		if _, again := fr.SkipOversize(); again != err {
			t.Errorf("cut %d: second SkipOversize = %v, want the same %v", cut, again, err)
		}
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// Skipping reads the declared bytes through a small buffer: a 64 MiB body
// costs no 64 MiB allocation.
func TestFrameReaderSkipOversizeHoldsNoBody(t *testing.T) {
	const size = 64 << 20
	r := io.MultiReader(bytes.NewReader(binary.BigEndian.AppendUint32(nil, size)), io.LimitReader(zeros{}, size), bytes.NewReader(frameBytes("after")))
	fr := NewFrameReader(r, 1<<10)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := fr.ReadFrame(); !errors.Is(err, ErrTooLarge) {
		t.Fatal(err)
	}
	if _, err := fr.SkipOversize(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("skipping a %d-byte body allocated %d bytes", size, n)
	}
	if p, err := fr.ReadFrame(); err != nil || string(p) != "after" {
		t.Fatalf("frame after the skip %q, %v", p, err)
	}
}
