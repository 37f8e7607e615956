package judge

import (
	"strings"
	"unicode/utf8"
)

// MaxStreamOutput is how much of each evaluator stream is kept (docs/protocol/judge.md).
const MaxStreamOutput = 1 << 20

// tailBuffer keeps the last max bytes written to it. Memory is bounded by
// 2*max: the buffer grows to twice the cap, then the tail is moved to the
// front, so each byte is copied at most once on average.
// Not safe for concurrent use.
type tailBuffer struct {
	max     int
	buf     []byte
	dropped bool // some head was cut off
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
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
func (t *tailBuffer) Len() int { return min(len(t.buf), t.max) }

// String returns the kept tail. When a head was dropped the cut may land
// inside a character; its continuation bytes are dropped too, so the text
// starts on a character boundary.
func (t *tailBuffer) String() string {
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

// MaxStderrTail is how much of each side's stderr ProcessExit.Stderr holds.
const MaxStderrTail = 4 << 10

// stderrTail is the last lines of s in at most MaxStderrTail bytes: cut on
// a character boundary, then past the first newline when a whole line
// still follows it.
func stderrTail(s string) string {
	if len(s) <= MaxStderrTail {
		return s
	}
	t := newTailBuffer(MaxStderrTail)
	t.Write([]byte(s))
	tail := t.String()
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i+1 < len(tail) {
		tail = tail[i+1:]
	}
	return tail
}
