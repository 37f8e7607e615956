package wire

import (
	"bytes"
	"fmt"
	"io"
)

// headLen is how much of an oversize line LineTooLongError keeps, enough to
// find the type and id of a frame that was too large to forward.
const headLen = 512

// LineTooLongError reports a line longer than the reader's cap. The line has
// been skipped; the next ReadLine returns the line after it.
type LineTooLongError struct {
	Length int64  // bytes in the line, without its "\n"
	Max    int    // the cap it broke
	Head   []byte // a copy of its first bytes (at most 512)
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("wire: line of %d bytes exceeds the %d-byte cap; skipped", e.Length, e.Max)
}

// Is reports whether target is ErrTooLarge.
func (e *LineTooLongError) Is(target error) bool { return target == ErrTooLarge }

// LineReader reads newline-delimited frames. It is not safe for concurrent use.
type LineReader struct {
	rd      io.Reader
	max     int
	buf     []byte // buf[start:end] holds unread bytes
	start   int
	end     int
	scanned int // buf[start:scanned] is known to hold no '\n'
	err     error
	skip    *LineTooLongError // an oversize line being skipped across ErrWouldBlock returns
	hold    *Hold             // nil, or the pool share len(buf) is charged to
}

// SetHold charges the reader's buffer to h (see Pool): the buffer asks h
// before it grows, and one grown past 64 KiB for a long line shrinks back
// once that line is read.
func (lr *LineReader) SetHold(h *Hold) {
	lr.hold = h
	lr.hold.Grow(int64(len(lr.buf)))
}

// Partial reports whether part of a line has been read: what the reader
// waits for is the rest of a message, not the next one.
func (lr *LineReader) Partial() bool { return lr.end > lr.start || lr.skip != nil }

// shrink gives back a buffer grown for a long line once the bytes left in
// it fit the initial size; only with a Hold, so plain readers keep theirs.
func (lr *LineReader) shrink() {
	if lr.hold == nil || len(lr.buf) <= initialBuffer || lr.end-lr.start > initialBuffer {
		return
	}
	small := make([]byte, initialBuffer)
	n := copy(small, lr.buf[lr.start:lr.end])
	lr.hold.Release(int64(len(lr.buf) - len(small)))
	lr.scanned -= lr.start
	lr.buf, lr.start, lr.end = small, 0, n
}

// initialBuffer is the first buffer size; the buffer doubles up to max+1 as
// long lines arrive and is then reused, so steady-state reads allocate nothing.
const initialBuffer = 64 << 10

// NewLineReader returns a reader of lines of at most maxLine bytes from r
// (DefaultMaxLine when maxLine <= 0). It holds at most maxLine+1 bytes of
// buffer, however long the lines it is given.
func NewLineReader(r io.Reader, maxLine int) *LineReader {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	return &LineReader{rd: r, max: maxLine}
}

// Reset makes the reader read from r, keeping its buffer.
func (lr *LineReader) Reset(r io.Reader) {
	lr.rd, lr.start, lr.end, lr.scanned, lr.err, lr.skip = r, 0, 0, 0, nil, nil
}

// Buffered returns how many bytes were read from the source and not yet
// returned: with none, the next ReadLine reads the source.
func (lr *LineReader) Buffered() int { return lr.end - lr.start }

// ReadLine returns the next line without its "\n" and without a trailing
// "\r". The slice is valid until the next call. At the end of the stream it
// returns io.EOF (after a final line without newline, if any); a line over
// the cap gives a *LineTooLongError and is skipped; other read errors are
// returned as they are and repeat on later calls.
//
// Over a non-blocking source, whose Read returns ErrWouldBlock when it has
// nothing now, ReadLine returns ErrWouldBlock when no whole line is
// buffered; what was read of a line is kept, and the next call goes on
// where this one stopped.
func (lr *LineReader) ReadLine() ([]byte, error) {
	if lr.skip != nil {
		return nil, lr.skipRest()
	}
	lr.shrink()
	for {
		if i := bytes.IndexByte(lr.buf[lr.scanned:lr.end], '\n'); i >= 0 {
			nl := lr.scanned + i
			if nl-lr.start > lr.max {
				return nil, lr.tooLong(nl)
			}
			line := lr.buf[lr.start:nl]
			lr.start, lr.scanned = nl+1, nl+1
			lr.hold.Settle()
			return dropCR(line), nil
		}
		lr.scanned = lr.end
		if lr.end-lr.start > lr.max {
			return nil, lr.skipRest()
		}
		if lr.err == ErrWouldBlock {
			lr.err = nil
			return nil, ErrWouldBlock
		}
		if lr.err != nil {
			if lr.end > lr.start && lr.err != ErrEvicted {
				line := lr.buf[lr.start:lr.end]
				lr.start, lr.scanned = lr.end, lr.end
				return dropCR(line), nil
			}
			return nil, lr.err
		}
		lr.fill()
	}
}

// fill reads more bytes, first making room by moving unread bytes to the
// front or growing the buffer (never past max+1 bytes).
func (lr *LineReader) fill() {
	if lr.start > 0 && (lr.end == len(lr.buf) || lr.start == lr.end) {
		n := copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.scanned -= lr.start
		lr.start, lr.end = 0, n
	}
	if lr.end == len(lr.buf) {
		size := 2 * len(lr.buf)
		if size < initialBuffer {
			size = initialBuffer
		}
		if size >= lr.max {
			size = lr.max + 1 // room for the whole cap and one byte to see past it
		}
		if err := lr.hold.Grow(int64(size - len(lr.buf))); err != nil {
			lr.err = err
			return
		}
		grown := make([]byte, size)
		copy(grown, lr.buf[lr.start:lr.end])
		lr.scanned -= lr.start
		lr.start, lr.end = 0, lr.end-lr.start
		lr.buf = grown
	}
	for tries := 0; tries < 100; tries++ {
		n, err := lr.rd.Read(lr.buf[lr.end:])
		lr.end += n
		if err != nil {
			lr.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	lr.err = io.ErrNoProgress
}

// tooLong reports the complete line ending at nl as too long and skips it.
func (lr *LineReader) tooLong(nl int) error {
	err := &LineTooLongError{Length: int64(nl - lr.start), Max: lr.max, Head: head(lr.buf[lr.start:nl])}
	lr.start, lr.scanned = nl+1, nl+1
	return err
}

// skipRest discards the buffered start of an oversize line and then reads
// and discards the rest of it, through the reused buffer, up to its newline.
// When the source would block it keeps the error in lr.skip and returns
// ErrWouldBlock; the next ReadLine resumes here.
func (lr *LineReader) skipRest() error {
	err := lr.skip
	if err == nil {
		err = &LineTooLongError{Length: int64(lr.end - lr.start), Max: lr.max, Head: head(lr.buf[lr.start:lr.end])}
		lr.start, lr.end, lr.scanned = 0, 0, 0
	}
	lr.skip = nil
	for lr.err == nil {
		n, rerr := lr.rd.Read(lr.buf)
		if i := bytes.IndexByte(lr.buf[:n], '\n'); i >= 0 {
			err.Length += int64(i)
			lr.start, lr.end, lr.scanned = i+1, n, i+1
			return err
		}
		err.Length += int64(n)
		if rerr == ErrWouldBlock {
			lr.skip = err
			return ErrWouldBlock
		}
		lr.err = rerr
	}
	return err // the stream ended inside the oversize line; its error comes next
}

func head(line []byte) []byte {
	if len(line) > headLen {
		line = line[:headLen]
	}
	return append([]byte(nil), line...)
}

func dropCR(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}
