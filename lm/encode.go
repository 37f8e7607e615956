package lm

import (
	"encoding/json"
	"math"
	"strconv"
)

// AppendJSON appends r's wire form to b. Prompts and metadata are written
// as the caller's original bytes (encoding/json would compact them), so a
// completion echoes its prompt byte for byte.
func (r *Response) AppendJSON(b []byte) []byte {
	switch {
	case r.Error != nil:
		b = append(b, `{"error":`...)
		b = appendString(b, *r.Error)
		return append(b, `,"chat_completion":null,"chat_completions":null}`...)
	case r.ChatCompletions != nil:
		b = append(b, `{"chat_completions":[`...)
		for i := range r.ChatCompletions {
			if i > 0 {
				b = append(b, ',')
			}
			b = r.ChatCompletions[i].appendJSON(b)
		}
		return append(b, `],"chat_completion":null,"error":null}`...)
	case r.ChatCompletion != nil:
		b = append(b, `{"chat_completion":`...)
		b = r.ChatCompletion.appendJSON(b)
		return append(b, `,"chat_completions":null,"error":null}`...)
	}
	return append(b, `{"error":"No chat completion or error provided.","chat_completion":null,"chat_completions":null}`...)
}

func (c *Completion) appendJSON(b []byte) []byte {
	b = append(b, `{"root_model":`...)
	b = appendString(b, c.RootModel)
	b = append(b, `,"prompt":`...)
	b = appendRaw(b, c.Prompt)
	b = append(b, `,"response":`...)
	b = appendString(b, c.Response)
	b = append(b, `,"usage_summary":`...)
	b = c.UsageSummary.appendJSON(b)
	b = append(b, `,"execution_time":`...)
	t := c.ExecutionTime
	if math.IsNaN(t) || math.IsInf(t, 0) || t < 0 {
		t = 0
	}
	b = strconv.AppendFloat(b, t, 'g', -1, 64)
	if !isNull(c.Metadata) {
		b = append(b, `,"metadata":`...)
		b = appendRaw(b, c.Metadata)
	}
	if c.Error != "" {
		b = append(b, `,"error":`...)
		b = appendString(b, c.Error)
	}
	return append(b, '}')
}

// appendString writes s as encoding/json does: a string of printable ASCII
// with nothing to escape as it is, any other through encoding/json (which
// also escapes <, > and &, and replaces invalid UTF-8).
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendFloat writes f as encoding/json does (a NaN or an infinity, which
// JSON cannot hold, as 0).
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, '0')
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendRaw writes raw JSON that came from a validated frame; anything else
// (a value built in Go) is re-validated so the output stays JSON.
func appendRaw(b []byte, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return append(b, "null"...)
	}
	if !json.Valid(raw) {
		return appendString(b, string(raw))
	}
	return append(b, raw...)
}
