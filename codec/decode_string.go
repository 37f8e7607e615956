package codec

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// string parses a JSON string at d.pos (which holds '"'). The result is
// always valid UTF-8: raw invalid bytes and lone surrogate escapes are
// rejected rather than replaced with U+FFFD.
func (d *decoder) string() (string, *pathTrace) {
	d.pos++ // opening quote
	start := d.pos
	ascii := true
	for i := start; i < len(d.data); i++ {
		c := d.data[i]
		switch {
		case c == '"':
			raw := d.data[start:i]
			if !ascii {
				if trace := d.checkUTF8(raw, start); trace != nil {
					return "", trace
				}
			}
			d.pos = i + 1
			return string(raw), nil
		case c == '\\':
			d.pos = i
			return d.escapedString(start)
		case c < 0x20:
			d.pos = i
			return "", d.syntaxError("control character 0x" +
				string([]byte{hexDigits[c>>4], hexDigits[c&0xf]}) + " in string (must be escaped)")
		case c >= 0x80:
			ascii = false
		}
	}
	d.pos = len(d.data)
	return "", d.syntaxError("unexpected end of input in string")
}

func (d *decoder) checkUTF8(raw []byte, offset int) *pathTrace {
	if utf8.Valid(raw) {
		return nil
	}
	return fail(invalidUTF8(string(raw), "offset", offset))
}

// escapedString continues a string whose content began at start and whose
// first backslash is at d.pos.
func (d *decoder) escapedString(start int) (string, *pathTrace) {
	buf := make([]byte, 0, d.pos-start+16)
	runStart := start
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			if trace := d.appendRun(&buf, runStart); trace != nil {
				return "", trace
			}
			d.pos++
			return string(buf), nil
		case c == '\\':
			if trace := d.appendRun(&buf, runStart); trace != nil {
				return "", trace
			}
			if trace := d.escape(&buf); trace != nil {
				return "", trace
			}
			runStart = d.pos
		case c < 0x20:
			return "", d.syntaxError("control character 0x" +
				string([]byte{hexDigits[c>>4], hexDigits[c&0xf]}) + " in string (must be escaped)")
		default:
			d.pos++
		}
	}
	return "", d.syntaxError("unexpected end of input in string")
}

// appendRun appends the unescaped bytes data[runStart:d.pos] after checking
// they are valid UTF-8. Runs end only at ASCII bytes, so each run holds
// whole characters.
func (d *decoder) appendRun(buf *[]byte, runStart int) *pathTrace {
	run := d.data[runStart:d.pos]
	if trace := d.checkUTF8(run, runStart); trace != nil {
		return trace
	}
	*buf = append(*buf, run...)
	return nil
}

// escape decodes one escape sequence at d.pos (the backslash).
func (d *decoder) escape(buf *[]byte) *pathTrace {
	d.pos++
	if d.pos >= len(d.data) {
		return d.syntaxError("unexpected end of input in string escape")
	}
	c := d.data[d.pos]
	var simple byte
	switch c {
	case '"', '\\', '/':
		simple = c
	case 'b':
		simple = '\b'
	case 'f':
		simple = '\f'
	case 'n':
		simple = '\n'
	case 'r':
		simple = '\r'
	case 't':
		simple = '\t'
	case 'u':
		return d.unicodeEscape(buf)
	default:
		return d.unexpected("in string escape")
	}
	*buf = append(*buf, simple)
	d.pos++
	return nil
}

// unicodeEscape decodes \uXXXX at d.pos ('u'), joining surrogate pairs.
func (d *decoder) unicodeEscape(buf *[]byte) *pathTrace {
	escStart := d.pos - 1
	r, trace := d.hex4()
	if trace != nil {
		return trace
	}
	if utf16.IsSurrogate(r) {
		if r < 0xDC00 && d.hasPrefix(`\u`) {
			d.pos++
			low, trace := d.hex4()
			if trace != nil {
				return trace
			}
			if pair := utf16.DecodeRune(r, low); pair != utf8.RuneError {
				*buf = utf8.AppendRune(*buf, pair)
				return nil
			}
		}
		d.pos = escStart
		return fail(because(ErrInvalidUTF8, "lone surrogate \\u"+
			strconv.FormatInt(int64(r), 16)+" at offset "+strconv.Itoa(escStart)+" is not valid UTF-8"))
	}
	*buf = utf8.AppendRune(*buf, r)
	return nil
}

// hex4 reads 'u' and four hex digits at d.pos.
func (d *decoder) hex4() (rune, *pathTrace) {
	d.pos++ // 'u'
	var r rune
	for i := 0; i < 4; i++ {
		if d.pos >= len(d.data) {
			return 0, d.syntaxError("unexpected end of input in \\u escape")
		}
		c := d.data[d.pos]
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, d.unexpected("in \\u escape (want a hex digit)")
		}
		d.pos++
	}
	return r, nil
}
