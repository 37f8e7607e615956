package frame

import (
	"strconv"
	"sync"

	"github.com/tether-dev/tether/codec"
)

// The Append forms encode a frame with its values into a caller's buffer,
// so the frame itself costs no new slice; pair them with GetBuffer and
// PutBuffer when the line is copied out (as peer's writer does) before the
// buffer is used again.

// AppendRequest appends a request frame with args to dst: a call (typ
// "call", name is its fn) or a capability call (typ "capability", name is
// the capability). timeoutMs <= 0 leaves timeout_ms out. If an argument is
// not transferable it returns dst and the codec's error, rooted at "args"
// as codec.MarshalArgs roots it.
func AppendRequest(dst []byte, typ, id, name string, args []any, timeoutMs int64) ([]byte, error) {
	nameKey := `,"name":`
	if typ == "call" {
		nameKey = `,"fn":`
	}
	b := append(dst, `{"type":"`...)
	b = append(b, typ...) // one of two constants: nothing to escape
	b = append(b, `","id":`...)
	b = appendString(b, id)
	b = append(b, nameKey...)
	b = appendString(b, name)
	b = append(b, `,"args":`...)
	b, err := appendArgs(b, args)
	if err != nil {
		return dst, err
	}
	if timeoutMs > 0 {
		b = append(b, `,"timeout_ms":`...)
		b = strconv.AppendInt(b, timeoutMs, 10)
	}
	return append(b, '}'), nil
}

// AppendResult appends a result frame with value to dst. If value is not
// transferable it returns dst and the codec's error (rooted at "value", as
// codec.Marshal roots it).
func AppendResult(dst []byte, id string, value any) ([]byte, error) {
	b := append(dst, `{"type":"result","id":`...)
	b = appendString(b, id)
	b = append(b, `,"value":`...)
	b, err := codec.Append(b, value)
	if err != nil {
		return dst, err
	}
	return append(b, '}'), nil
}

// appendArgs appends args as a JSON list (nil as []). It goes through
// MarshalArgs, not Append(dst, args): boxing args into an any would move
// the caller's variadic array to the heap.
func appendArgs(dst []byte, args []any) ([]byte, error) {
	enc, err := codec.MarshalArgs(args)
	if err != nil {
		return dst, err
	}
	return append(dst, enc...), nil
}

// maxPooledBuffer bounds the buffers PutBuffer keeps, so one huge frame
// does not stay in memory for the life of the process.
const maxPooledBuffer = 64 << 10

var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// GetBuffer returns an empty buffer for encoding a frame; the caller owns
// it until PutBuffer. Safe for concurrent use.
func GetBuffer() *[]byte {
	b := buffers.Get().(*[]byte)
	*b = (*b)[:0]
	return b
}

// PutBuffer gives b back; b (and any slice of it) must not be used after.
func PutBuffer(b *[]byte) {
	if cap(*b) <= maxPooledBuffer {
		buffers.Put(b)
	}
}
