package wire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// FrameTooLargeError reports a length-prefixed frame over the maximum.
type FrameTooLargeError struct {
	Length uint64 // the declared (reading) or given (writing) payload length
	Max    int
}

func (e *FrameTooLargeError) Error() string {
	return fmt.Sprintf("wire: frame of %d bytes exceeds the %d-byte maximum", e.Length, e.Max)
}

// Is reports whether target is ErrTooLarge.
func (e *FrameTooLargeError) Is(target error) bool { return target == ErrTooLarge }

const headerLen = 4

// FrameReader reads 4-byte big-endian length-prefixed frames. It is not safe
// for concurrent use.
type FrameReader struct {
	rd     io.Reader
	max    int
	header [headerLen]byte
	buf    []byte
	err    error // sticky: a stream that broke framing cannot be resynchronized
	// oversize is the error of the frame ReadFrame refused for its length,
	// whose body SkipOversize may still skip; nil once skipped or failed.
	oversize *FrameTooLargeError
	hold     *Hold // nil, or the pool share cap(buf) is charged to
	partial  bool  // a frame has begun and is not whole yet
}

// SetHold charges the reader's buffer to h (see Pool): a buffer that must
// grow asks h first, and one over keepReadBuffer is given back after its
// frame.
func (fr *FrameReader) SetHold(h *Hold) {
	fr.hold = h
	fr.hold.Grow(int64(cap(fr.buf)))
}

// Partial reports whether a frame has begun and is not whole yet: what the
// reader waits for is the rest of a message, not the next one.
func (fr *FrameReader) Partial() bool { return fr.partial }

// keepReadBuffer is the largest buffer kept from one frame to the next when
// a Hold is set; larger ones go back to the pool after their frame.
const keepReadBuffer = 64 << 10

// readBuffer is the read-ahead for small frames; bufio hands larger reads
// straight to the underlying reader, so big payloads are not copied twice.
const readBuffer = 32 << 10

// NewFrameReader returns a reader of frames of at most maxFrame payload bytes
// (DefaultMaxFrame when maxFrame <= 0). It may read ahead of the current
// frame, so it should be the only reader of r.
func NewFrameReader(r io.Reader, maxFrame int) *FrameReader {
	if maxFrame <= 0 {
		maxFrame = DefaultMaxFrame
	}
	if _, ok := r.(*bufio.Reader); !ok {
		r = bufio.NewReaderSize(r, readBuffer)
	}
	return &FrameReader{rd: r, max: maxFrame}
}

// ReadFrame returns the next payload, valid until the next call. A clean end
// of stream before a header gives io.EOF; an end inside a header or a body
// gives an error that matches io.ErrUnexpectedEOF; a declared length over
// the maximum gives *FrameTooLargeError before anything is allocated. After
// any error the stream is unusable and every later call returns that error,
// unless SkipOversize skips the body of a frame that was too large.
func (fr *FrameReader) ReadFrame() ([]byte, error) {
	if fr.err != nil {
		return nil, fr.err
	}
	if fr.hold != nil && cap(fr.buf) > keepReadBuffer {
		fr.hold.Release(int64(cap(fr.buf)))
		fr.buf = nil
	}
	fr.partial = false
	if _, err := io.ReadFull(fr.rd, fr.header[:1]); err != nil {
		fr.err = err
		return nil, err
	}
	fr.partial = true
	if n, err := io.ReadFull(fr.rd, fr.header[1:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = fmt.Errorf("wire: frame header cut after %d of %d bytes: %w", n+1, headerLen, io.ErrUnexpectedEOF)
		}
		fr.err = err
		return nil, err
	}
	size := int(binary.BigEndian.Uint32(fr.header[:]))
	if uint64(size) > uint64(fr.max) {
		fr.oversize = &FrameTooLargeError{Length: uint64(size), Max: fr.max}
		fr.err = fr.oversize
		return nil, fr.err
	}
	body, err := fr.readBody(size)
	if err != nil {
		fr.err = err
		if fr.hold != nil {
			fr.hold.Release(int64(cap(fr.buf)))
			fr.buf = nil
		}
		return nil, err
	}
	fr.partial = false
	fr.hold.Settle()
	return body, nil
}

// readBody reads size bytes into the reader's buffer. The buffer grows as
// bytes arrive (doubling from 64 KiB), each step charged to the Hold first,
// so a declared length costs nothing until its bytes are sent.
func (fr *FrameReader) readBody(size int) ([]byte, error) {
	if cap(fr.buf) >= size {
		body := fr.buf[:size]
		if n, err := io.ReadFull(fr.rd, body); err != nil {
			return nil, bodyErr(err, n, size)
		}
		return body, nil
	}
	body := fr.buf[:0]
	for len(body) < size {
		if len(body) == cap(body) {
			grown := min(size, max(2*cap(body), keepReadBuffer))
			if err := fr.hold.Grow(int64(grown - cap(body))); err != nil {
				return nil, err
			}
			next := make([]byte, len(body), grown)
			copy(next, body)
			body = next
			fr.buf = body
		}
		n, err := io.ReadAtLeast(fr.rd, body[len(body):cap(body)], 1)
		body = body[:len(body)+n]
		if err != nil {
			return nil, bodyErr(err, len(body), size)
		}
	}
	return body, nil
}

func bodyErr(err error, n, size int) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("wire: frame body cut after %d of %d bytes: %w", n, size, io.ErrUnexpectedEOF)
	}
	return err
}

// errNoOversizeFrame is SkipOversize's error when ReadFrame did not just
// refuse a frame for its length.
var errNoOversizeFrame = errors.New("wire: SkipOversize: no oversize frame to skip")

// SkipOversize skips the body of the frame that ReadFrame just refused with
// *FrameTooLargeError: it reads exactly the declared number of bytes through
// a small reused buffer, never holding the body, and then clears the error,
// so that the next ReadFrame reads the frame after it. It returns a copy of
// the body's first bytes (at most 512), enough to find the type and id of the
// message that was too large.
//
// A stream that ends inside the body gives an error matching
// io.ErrUnexpectedEOF, and that error sticks like any other. Without a call
// to SkipOversize, a frame that was too large ends the stream as ReadFrame
// says. Called at any other time, SkipOversize returns the reader's sticky
// error, or an error if there is none, and changes nothing.
//
// A declared length up to 4 GiB may have to be read before the next frame:
// a peer that sends bytes that are no frame at all (a stray newline-delimited
// message reads as a length near 2 GiB) can keep the reader skipping until
// it closes the stream. Readers that cannot afford that keep the default.
func (fr *FrameReader) SkipOversize() ([]byte, error) {
	big := fr.oversize
	if big == nil || fr.err != error(big) {
		if fr.err != nil {
			return nil, fr.err
		}
		return nil, errNoOversizeFrame
	}
	fr.oversize = nil
	head := make([]byte, min(big.Length, headLen))
	n, err := io.ReadFull(fr.rd, head)
	skipped := int64(n)
	if err == nil {
		var m int64
		m, err = io.CopyN(io.Discard, fr.rd, int64(big.Length)-skipped)
		skipped += m
	}
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = fmt.Errorf("wire: oversize frame body cut after %d of %d bytes: %w", skipped, big.Length, io.ErrUnexpectedEOF)
		}
		fr.err = err
		return nil, err
	}
	fr.err = nil
	return head, nil
}

// FrameWriter writes 4-byte big-endian length-prefixed frames. It is safe for
// concurrent use.
type FrameWriter struct {
	mu      sync.Mutex // serializes frames; guards scratch
	w       io.Writer
	max     int
	scratch []byte
}

// NewFrameWriter returns a writer of frames of at most maxFrame payload
// bytes (DefaultMaxFrame when maxFrame <= 0) to w.
func NewFrameWriter(w io.Writer, maxFrame int) *FrameWriter {
	if maxFrame <= 0 {
		maxFrame = DefaultMaxFrame
	}
	return &FrameWriter{w: w, max: maxFrame}
}

// WriteFrame writes the header and p in one Write call.
func (fw *FrameWriter) WriteFrame(p []byte) error {
	if len(p) > fw.max {
		return &FrameTooLargeError{Length: uint64(len(p)), Max: fw.max}
	}
	fw.mu.Lock()
	defer fw.mu.Unlock()
	buf := fw.scratch[:0]
	if headerLen+len(p) > keepWriteBuffer {
		buf = make([]byte, 0, headerLen+len(p))
	}
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(p)))
	buf = append(buf, p...)
	if cap(buf) <= keepWriteBuffer {
		fw.scratch = buf
	}
	_, err := fw.w.Write(buf)
	return err
}
