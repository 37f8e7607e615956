// Package tail keeps the last bytes of an output: a judge keeps the end of
// what a side prints, a build the end of what a compiler prints, however
// much either writes.
package tail

import "unicode/utf8"

// Buffer keeps the last max bytes written to it. Memory is bounded by
// 2*max: the buffer grows to twice the cap, then the tail is moved to the
// front, so each byte is copied at most once on average. A max of 0 or
// less keeps nothing. Not safe for concurrent use.
type Buffer struct {
	max     int
	buf     []byte
	dropped bool // some head was cut off
}

// New is an empty Buffer keeping the last n bytes (none when n <= 0).
func New(n int) *Buffer { return &Buffer{max: max(n, 0)} }

// Write keeps p's tail; it never fails.
func (t *Buffer) Write(p []byte) (int, error) {
	n := len(p)
	if t.max == 0 {
		return n, nil
	}
	if len(p) >= t.max {
		t.dropped = t.dropped || len(t.buf) > 0 || len(p) > t.max
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	if len(t.buf)+len(p) > 2*t.max {
		keep := t.max - len(p)
		copy(t.buf, t.buf[len(t.buf)-keep:])
		t.buf = t.buf[:keep]
		t.dropped = true
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// Len is the number of bytes String would return before the UTF-8 cut.
func (t *Buffer) Len() int { return min(len(t.buf), t.max) }

// Cut reports whether a head of what was written is not kept.
func (t *Buffer) Cut() bool { return t.dropped || len(t.buf) > t.max }

// String returns the kept tail. When a head was dropped the cut may land
// inside a character; its continuation bytes are dropped too, so the text
// starts on a character boundary.
func (t *Buffer) String() string {
	b := t.buf
	if len(b) > t.max {
		b = b[len(b)-t.max:]
		t.dropped = true
	}
	if t.dropped {
		// A character has at most UTFMax-1 continuation bytes.
		for i := 0; i < utf8.UTFMax-1 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
			b = b[1:]
		}
	}
	return string(b)
}
