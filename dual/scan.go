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
// answers Rejected (docs/protocol/judge.md: they are rejected on both sides); read as
// text, a result holding one would leave its call to time out.
var lineSyntax = jsonscan.Syntax{MaxDepth: maxDepth, UTF8: true, NonFinite: true}

// scanObject reads b as one top-level JSON object (white space around it
// allowed) in a single pass without allocating, recording in f the members
// routing needs as they are found, so on a cut line f holds those that came
// before the cut. It reports whether b is exactly one valid object.
func scanObject(b []byte, f *Frame) bool {
	i := lineSyntax.Members(b, jsonscan.SkipSpace(b, 0), f.set)
	return i >= 0 && jsonscan.SkipSpace(b, i) == len(b)
}

// set records a top-level member if routing needs it. A key spelled with
// escapes still names its member: it is decoded only when it does not
// match as it stands (a name routing needs holds no backslash).
func (f *Frame) set(key, val []byte) {
	k := key[1 : len(key)-1]
	if !f.setNamed(k, val) && bytes.IndexByte(k, '\\') >= 0 {
		f.setNamed(Unquote(key), val)
	}
}

// setNamed records the member named k; false if routing does not need it.
func (f *Frame) setNamed(k, val []byte) bool {
	var tok []byte
	if val[0] == '"' {
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
	default:
		return false
	}
	return true
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
