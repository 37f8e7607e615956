package dual

import (
	"strconv"
	"unicode/utf8"
)

// Messages the engine writes itself. MsgCallTimeout is fixed by Neuro OJ.
const (
	msgCallTimeout     = "call timeout"
	msgDuplicateCall   = "duplicate call id"
	msgDuplicateCap    = "duplicate capability id"
	msgRestarted       = "solution restarted after timeout"
	msgTooManyInFlight = "too many calls in flight"
	msgQueueFull       = "too many calls queued while the solution starts"
	msgGonePrefix      = "solution is gone: "
	msgEvaluatorGone   = "evaluator is gone: "
	msgIDTooLongPrefix = "id longer than "
	msgFrameSizePrefix = "frame size "
)

// AppendError appends the error frame
// {"type":"error","id":ID,"code":CODE,"message":MESSAGE} (no newline) to
// dst. rawID is the id's JSON token as the request carried it; message is
// JSON-escaped here.
func appendError(dst, rawID []byte, code, message string) []byte {
	dst = append(dst, `{"type":"error","id":`...)
	dst = append(dst, rawID...)
	dst = append(dst, `,"code":`...)
	dst = appendJSONString(dst, code)
	dst = append(dst, `,"message":`...)
	dst = appendJSONString(dst, message)
	return append(dst, '}')
}

// frameSizeMessage appends "frame size N > MAX" as a JSON string body.
func frameSizeMessage(dst []byte, n, max int) []byte {
	dst = append(dst, msgFrameSizePrefix...)
	dst = strconv.AppendInt(dst, int64(n), 10)
	dst = append(dst, " > "...)
	return strconv.AppendInt(dst, int64(max), 10)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string; bytes that are not valid
// UTF-8 become U+FFFD, so the result is always a valid frame field.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\r':
			dst = append(dst, '\\', 'r')
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xf])
		default:
			dst = utf8.AppendRune(dst, r)
		}
	}
	return append(dst, '"')
}
