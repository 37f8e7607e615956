package dual

import (
	"bytes"

	"github.com/tether-dev/tether/internal/jsonscan"
)

// maxDepth matches encoding/json: deeper nesting is not valid.
const maxDepth = jsonscan.DefaultMaxDepth

// lineSyntax is the grammar of a frame: JSON whose strings are UTF-8, as
// the spec requires of every line, and Python's NaN, Infinity and
// -Infinity, which a Python peer (Neuro OJ's own SDKs) writes by default.
// A frame holding them is routed like any other, and the SDK it reaches
// answers Rejected (dual.md: they are rejected on both sides); read as
// text, a result holding one would leave its call to time out.
var lineSyntax = jsonscan.Syntax{MaxDepth: maxDepth, UTF8: true, NonFinite: true}

// scanner validates one JSON value (RFC 8259, UTF-8 strings) in a single
// pass without allocating, picking out the top-level members routing needs.
// The grammar below the top level is jsonscan's.
type scanner struct {
	b []byte
	i int
}

// object parses a whole top-level object into f and reports whether the
// input is exactly one valid JSON object (surrounding white space allowed).
// Members are recorded as they are found, so on a cut line f holds those
// that came before the cut.
func (p *scanner) object(f *Frame) bool {
	b := p.b
	i := jsonscan.SkipSpace(b, p.i)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = jsonscan.SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		p.i = i + 1
		return p.end()
	}
	for {
		ks := i
		i = lineSyntax.SkipString(b, i)
		if i < 0 {
			return false
		}
		key := b[ks:i]
		i = jsonscan.SkipSpace(b, i)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		vs := jsonscan.SkipSpace(b, i+1)
		i = lineSyntax.SkipValue(b, vs, 1) // members sit inside the top-level object
		if i < 0 {
			return false
		}
		f.set(key, b[vs:i])
		i = jsonscan.SkipSpace(b, i)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = jsonscan.SkipSpace(b, i+1)
		case '}':
			p.i = i + 1
			return p.end()
		default:
			return false
		}
	}
}

func (p *scanner) end() bool {
	return jsonscan.SkipSpace(p.b, p.i) == len(p.b)
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
