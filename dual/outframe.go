package dual

import (
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/codec"
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

// appendJSONString appends s as a JSON string (codec's one encoder);
// bytes that are not valid UTF-8 become U+FFFD, so the result is always a
// valid frame field.
func appendJSONString(dst []byte, s string) []byte {
	return codec.AppendString(dst, strings.ToValidUTF8(s, "\uFFFD"))
}

// opened reports entry i, named name (a raw token or nil), as opened.
func (e *engine) opened(out []action, i int32, name []byte, now time.Time) []action {
	if !e.cfg.ReportCalls {
		return out
	}
	en := &e.t.slots[i]
	en.opened = now
	en.fn = en.fn[:0]
	if name != nil {
		en.fn = append(en.fn, Unquote(name)...)
	}
	return append(out, action{Kind: actCallOpened, From: en.dir.waiter(), ID: en.id, Name: en.fn})
}

// closed reports entry en as closed with outcome o; call it after
// removing en (its buffers stay valid until the next insert).
func (e *engine) closed(out []action, en *entry, o CallEnd, now time.Time) []action {
	if !e.cfg.ReportCalls {
		return out
	}
	return append(out, action{Kind: actCallClosed, From: en.dir.waiter(), ID: en.id, Name: en.fn,
		End: o, Took: now.Sub(en.opened)})
}

// refused reports request f from side from as answered without being opened.
func (e *engine) refused(out []action, from Side, f *Frame) []action {
	if !e.cfg.ReportCalls || f.ID == nil {
		return out
	}
	name := f.Fn
	if from == Solution {
		name = f.Name
	}
	if name != nil {
		name = Unquote(name)
	}
	return append(out, action{Kind: actCallClosed, From: from, ID: Unquote(f.ID), Name: name, End: EndRefused})
}

// reply appends an engine-written error frame to side to.
func (e *engine) reply(out []action, to Side, rawID []byte, code, msg string, counter *int64) []action {
	if counter != nil {
		*counter++
	}
	start := len(e.scratch)
	e.scratch = appendError(e.scratch, rawID, code, msg)
	return append(out, action{Kind: actSend, To: to, Frame: e.scratch[start:]})
}
