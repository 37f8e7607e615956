package dual

import (
	"bytes"
	"unicode/utf8"
)

// maxDepth matches encoding/json: deeper nesting is not valid.
const maxDepth = 10000

// scanner validates one JSON value (RFC 8259, UTF-8 strings) in a single
// pass without allocating, picking out the top-level members routing needs.
type scanner struct {
	b     []byte
	i     int
	depth int
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (p *scanner) ws() {
	for p.i < len(p.b) && isSpace(p.b[p.i]) {
		p.i++
	}
}

// object parses a whole top-level object into f and reports whether the
// input is exactly one valid JSON object (surrounding white space allowed).
func (p *scanner) object(f *Frame) bool {
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		return false
	}
	p.i++
	p.depth = 1
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return p.end()
	}
	for {
		p.ws()
		ks := p.i
		if !p.str() {
			return false
		}
		key := p.b[ks:p.i]
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return false
		}
		p.i++
		p.ws()
		vs := p.i
		if !p.value() {
			return false
		}
		f.set(key, p.b[vs:p.i])
		p.ws()
		if p.i >= len(p.b) {
			return false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return p.end()
		default:
			return false
		}
	}
}

func (p *scanner) end() bool {
	p.ws()
	return p.i == len(p.b)
}

// set records a top-level member if routing needs it.
func (f *Frame) set(key, val []byte) {
	k := key[1 : len(key)-1]
	if bytes.IndexByte(k, '\\') >= 0 {
		k = unquote(key) // rare: an escaped key still names its member
	}
	if len(k) > 10 || len(k) < 2 {
		return
	}
	isStr := val[0] == '"'
	var tok []byte
	if isStr {
		tok = val
	}
	switch string(k) {
	case "type":
		f.TypeRaw = tok
	case "id":
		f.HasID = true
		f.ID = tok
	case "fn":
		f.Fn = tok
	case "name":
		f.Name = tok
	case "stream":
		f.Stream = tok
	case "data":
		f.Data = tok
	case "timeout_ms":
		f.HasTimeout = true
		f.TimeoutMS = positiveInt(val)
	}
}

// positiveInt returns the value of a JSON integer literal (no fraction or
// exponent) if it is positive, saturating at a century of milliseconds; else 0.
func positiveInt(v []byte) int64 {
	const limit = int64(maxTimeout / 1e6)
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0
		}
		if n < limit {
			n = n*10 + int64(c-'0')
		}
	}
	if n > limit {
		n = limit
	}
	return n
}

func (p *scanner) value() bool {
	if p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		return p.str()
	case c == '{':
		return p.nested('}')
	case c == '[':
		return p.nested(']')
	case c == 't':
		return p.lit("true")
	case c == 'f':
		return p.lit("false")
	case c == 'n':
		return p.lit("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.num()
	}
	return false
}

func (p *scanner) lit(s string) bool {
	if len(p.b)-p.i < len(s) || string(p.b[p.i:p.i+len(s)]) != s {
		return false
	}
	p.i += len(s)
	return true
}

// nested skips an object or array below the top level.
func (p *scanner) nested(closer byte) bool {
	p.depth++
	if p.depth > maxDepth {
		return false
	}
	p.i++
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == closer {
		p.i++
		p.depth--
		return true
	}
	for {
		p.ws()
		if closer == '}' {
			if !p.str() {
				return false
			}
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return false
			}
			p.i++
			p.ws()
		}
		if !p.value() {
			return false
		}
		p.ws()
		if p.i >= len(p.b) {
			return false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case closer:
			p.i++
			p.depth--
			return true
		default:
			return false
		}
	}
}

// plainStringByte marks the bytes a string holds as they are: printable
// ASCII other than '"' and '\\'.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (p *scanner) str() bool {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return false
	}
	p.i++
	for p.i < len(p.b) {
		c := p.b[p.i]
		if plainStringByte[c] { // the common case: one load, one branch
			p.i++
			continue
		}
		switch {
		case c == '"':
			p.i++
			return true
		case c == '\\':
			p.i++
			if p.i >= len(p.b) {
				return false
			}
			switch p.b[p.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i++
			case 'u':
				if len(p.b)-p.i < 5 {
					return false
				}
				for _, h := range p.b[p.i+1 : p.i+5] {
					if !isHex(h) {
						return false
					}
				}
				p.i += 5
			default:
				return false
			}
		case c < 0x20:
			return false
		case c < utf8.RuneSelf:
			p.i++
		default:
			r, n := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && n == 1 {
				return false
			}
			p.i += n
		}
	}
	return false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func (p *scanner) digits() int {
	s := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i - s
}

func (p *scanner) num() bool {
	if p.b[p.i] == '-' {
		p.i++
	}
	if p.i >= len(p.b) {
		return false
	}
	if p.b[p.i] == '0' {
		p.i++
	} else if p.digits() == 0 {
		return false
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if p.digits() == 0 {
			return false
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return false
		}
	}
	return true
}
