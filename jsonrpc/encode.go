package jsonrpc

import (
	"bytes"
	"encoding/json"
	"runtime/debug"
	"strconv"
	"sync"
)

// frameBuf builds one outgoing frame. Frames are built in pooled buffers so
// that a round trip allocates nothing for the envelope; values inside it go
// through the buffer's own json.Encoder.
type frameBuf struct {
	bytes.Buffer
	enc *json.Encoder
}

// maxPooledFrame keeps one huge result from pinning its buffer forever.
const maxPooledFrame = 64 << 10

var framePool = sync.Pool{New: func() any {
	f := &frameBuf{}
	f.enc = json.NewEncoder(&f.Buffer)
	return f
}}

func getFrame() *frameBuf { return framePool.Get().(*frameBuf) }

func putFrame(f *frameBuf) {
	if f.Cap() > maxPooledFrame {
		return
	}
	f.Reset()
	framePool.Put(f)
}

// value appends v as compact JSON. On error nothing is appended; a panic
// in a MarshalJSON method is returned as a *panicError.
func (f *frameBuf) value(v any) (err error) {
	if raw, ok := v.(json.RawMessage); ok && isCompactJSON(raw) {
		f.Write(raw)
		return nil
	}
	n := f.Len()
	defer func() {
		if p := recover(); p != nil {
			f.Truncate(n)
			err = &panicError{value: p, stack: debug.Stack()}
		}
	}()
	if err := f.enc.Encode(v); err != nil {
		f.Truncate(n)
		return err
	}
	f.Truncate(f.Len() - 1) // Encode ends every value with "\n"
	return nil
}

// isCompactJSON reports whether raw is valid JSON with no newline, so that it
// can go into a line as it is.
func isCompactJSON(raw []byte) bool {
	return len(raw) > 0 && bytes.IndexByte(raw, '\n') < 0 && validJSON(raw)
}

// quoted appends s as a JSON string.
func (f *frameBuf) quoted(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // strings always marshal
			f.Write(b)
			return
		}
	}
	f.WriteByte('"')
	f.WriteString(s)
	f.WriteByte('"')
}

// request appends a request or, when id is 0, a notification. params may be
// nil (omitted).
func (f *frameBuf) request(id int64, method string, params any) error {
	f.WriteString(`{"jsonrpc":"2.0",`)
	if id != 0 {
		f.WriteString(`"id":`)
		var num [20]byte
		f.Write(strconv.AppendInt(num[:0], id, 10))
		f.WriteByte(',')
	}
	f.WriteString(`"method":`)
	f.quoted(method)
	if params != nil {
		f.WriteString(`,"params":`)
		n := f.Len()
		if err := f.value(params); err != nil {
			return err
		}
		if c := f.Bytes()[n]; c != '[' && c != '{' {
			return errParamsShape
		}
	}
	f.WriteByte('}')
	return nil
}

// result appends a success response. On error the buffer is left unusable
// and the caller resets it.
func (f *frameBuf) result(id []byte, v any) error {
	f.WriteString(`{"jsonrpc":"2.0","id":`)
	f.Write(id)
	f.WriteString(`,"result":`)
	if err := f.value(v); err != nil {
		return err
	}
	f.WriteByte('}')
	return nil
}

// errorResponse appends an error response; id nil means null.
func (f *frameBuf) errorResponse(id []byte, e *Error) {
	f.WriteString(`{"jsonrpc":"2.0","id":`)
	if id == nil {
		f.WriteString("null")
	} else {
		f.Write(id)
	}
	f.WriteString(`,"error":{"code":`)
	var num [20]byte
	f.Write(strconv.AppendInt(num[:0], int64(e.Code), 10))
	f.WriteString(`,"message":`)
	f.quoted(e.Message)
	if len(e.Data) > 0 {
		n := f.Len()
		f.WriteString(`,"data":`)
		if f.value(e.Data) != nil {
			f.Truncate(n)
		}
	}
	f.WriteString("}}")
}
