package codec

import (
	"strconv"
)

// Unmarshal decodes exactly one transferable value from data (surrounding
// JSON whitespace allowed). Results are nil, bool, int64, *big.Int (integers
// outside int64), float64, string, []byte, []any and map[string]any.
// Errors are *PathError with paths rooted at "value". Unmarshal does not
// retain data, so the caller may reuse the buffer (for example a frame
// reader's slice). Safe for concurrent use.
func Unmarshal(data []byte) (any, error) {
	d := decoder{data: data}
	d.skipSpace()
	v, trace := d.value(0)
	if trace == nil {
		d.skipSpace()
		if d.pos != len(d.data) {
			trace = d.syntaxError("trailing data after the value")
		}
	}
	if trace != nil {
		return nil, trace.rooted("value")
	}
	return v, nil
}

// decoder is a recursive-descent parser over one input; pos is the offset
// of the next unread byte.
type decoder struct {
	data []byte
	pos  int
}

func (d *decoder) syntaxError(msg string) *pathTrace {
	return fail(&SyntaxError{Offset: d.pos, Msg: msg})
}

func (d *decoder) unexpected(context string) *pathTrace {
	if d.pos >= len(d.data) {
		return d.syntaxError("unexpected end of input " + context)
	}
	c := d.data[d.pos]
	var shown string
	if c >= 0x20 && c < 0x7f {
		shown = strconv.QuoteRune(rune(c))
	} else {
		shown = "byte 0x" + string([]byte{hexDigits[c>>4], hexDigits[c&0xf]})
	}
	return d.syntaxError("unexpected " + shown + " " + context)
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// value parses one value that sits inside depth containers.
func (d *decoder) value(depth int) (any, *pathTrace) {
	if d.pos >= len(d.data) {
		return nil, d.unexpected("looking for a value")
	}
	switch c := d.data[d.pos]; c {
	case '"':
		s, trace := d.string()
		if trace != nil {
			return nil, trace
		}
		return s, nil
	case '{':
		return d.object(depth)
	case '[':
		return d.array(depth)
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	case 'n':
		return nil, d.literal("null")
	case 'N':
		if d.hasPrefix("NaN") {
			return nil, fail(because(ErrNonFinite, "NaN is not transferable"))
		}
	case 'I':
		if d.hasPrefix("Infinity") {
			return nil, fail(because(ErrNonFinite, "Infinity is not transferable"))
		}
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return d.number()
		}
	}
	return nil, d.unexpected("looking for a value")
}

func (d *decoder) hasPrefix(word string) bool {
	return len(d.data)-d.pos >= len(word) && string(d.data[d.pos:d.pos+len(word)]) == word
}

func (d *decoder) literal(word string) *pathTrace {
	if !d.hasPrefix(word) {
		for i := 0; i < len(word); i++ {
			if d.pos >= len(d.data) || d.data[d.pos] != word[i] {
				return d.unexpected("in literal " + word)
			}
			d.pos++
		}
	}
	d.pos += len(word)
	return nil
}

func (d *decoder) array(depth int) (any, *pathTrace) {
	if depth >= MaxDepth {
		return nil, tooDeep()
	}
	d.pos++ // '['
	d.skipSpace()
	list := []any{}
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return list, nil
	}
	for {
		v, trace := d.value(depth + 1)
		if trace != nil {
			return nil, trace.index(len(list))
		}
		list = append(list, v)
		switch d.next(']') {
		case ',':
			continue
		case ']':
			return list, nil
		}
		return nil, d.unexpected("after a list element (want ',' or ']')")
	}
}

// next reads what follows a list element or map entry: a ',' (and the
// space after it) or end, the list's or map's closing byte, which it
// returns; anything else it leaves for the caller's error, returning 0.
func (d *decoder) next(end byte) byte {
	d.skipSpace()
	if d.pos < len(d.data) {
		if c := d.data[d.pos]; c == ',' || c == end {
			d.pos++
			if c == ',' {
				d.skipSpace()
			}
			return c
		}
	}
	return 0
}

func (d *decoder) object(depth int) (any, *pathTrace) {
	if depth >= MaxDepth {
		return nil, tooDeep()
	}
	d.pos++ // '{'
	d.skipSpace()
	m := map[string]any{}
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return m, nil
	}
	for {
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.unexpected("looking for a map key")
		}
		keyStart := d.pos
		k, trace := d.string()
		if trace != nil {
			return nil, trace
		}
		if _, dup := m[k]; dup {
			d.pos = keyStart
			return nil, fail(because(ErrDuplicateKey, "duplicate key at offset "+strconv.Itoa(keyStart))).key(k)
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.unexpected("after a map key (want ':')")
		}
		d.pos++
		d.skipSpace()
		if len(m) == 0 && k == bytesKey {
			if b, done, trace := d.bytesWrapper(); done {
				return b, trace
			}
		}
		v, trace := d.value(depth + 1)
		if trace != nil {
			return nil, trace.key(k)
		}
		m[k] = v
		switch d.next('}') {
		case ',':
			continue
		case '}':
			return unwrapBytes(m)
		}
		return nil, d.unexpected("after a map entry (want ',' or '}')")
	}
}

// unwrapBytes turns {"__bytes__": "<base64>"} into []byte; any other map,
// including {"__bytes__": <non-string>} and maps with more keys, stays a map.
func unwrapBytes(m map[string]any) (any, *pathTrace) {
	if len(m) != 1 {
		return m, nil
	}
	s, ok := m[bytesKey].(string)
	if !ok {
		return m, nil
	}
	b, err := decodeBase64([]byte(s))
	if err != nil {
		return nil, fail(err)
	}
	return b, nil
}

// bytesWrapper is the fast path for {"__bytes__": "<base64>"}, called just
// after the first key "__bytes__" and its colon: when the value is a plain
// ASCII string without escapes and closes the object, it decodes the base64
// straight from the input (done is true). Otherwise it leaves d.pos where it
// was and the general path parses the entry.
func (d *decoder) bytesWrapper() (b []byte, done bool, trace *pathTrace) {
	if d.pos >= len(d.data) || d.data[d.pos] != '"' {
		return nil, false, nil
	}
	start := d.pos
	end := start + 1
	for end < len(d.data) && d.data[end] != '"' {
		if c := d.data[end]; c == '\\' || c < 0x20 || c >= 0x80 {
			return nil, false, nil
		}
		end++
	}
	if end >= len(d.data) {
		return nil, false, nil
	}
	d.pos = end + 1
	d.skipSpace()
	if d.pos >= len(d.data) || d.data[d.pos] != '}' {
		d.pos = start
		return nil, false, nil
	}
	d.pos++
	b, err := decodeBase64(d.data[start+1 : end])
	if err != nil {
		return nil, true, fail(err)
	}
	return b, true, nil
}
