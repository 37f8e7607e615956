package jsonscan

// DefaultMaxDepth is the nesting limit encoding/json applies.
const DefaultMaxDepth = 10000

// Syntax is the part of the grammar callers choose; see the package doc.
// The zero value accepts only scalars and does not check UTF-8.
type Syntax struct {
	// MaxDepth is the deepest container nesting accepted (1: no container
	// inside another).
	MaxDepth int
	// UTF8 requires the bytes inside strings to be valid UTF-8.
	UTF8 bool
	// NonFinite accepts the tokens NaN, Infinity and -Infinity where a
	// number may stand, as Python's json module writes and reads them.
	NonFinite bool
}

// Valid reports whether data holds exactly one JSON value, with optional
// surrounding white space.
func (s Syntax) Valid(data []byte) bool {
	i := s.SkipValue(data, SkipSpace(data, 0), 0)
	return i >= 0 && SkipSpace(data, i) == len(data)
}

// SkipValue checks the value starting at data[i], inside containers nested
// depth deep, and returns the index just after it or -1.
func (s Syntax) SkipValue(data []byte, i, depth int) int {
	if i >= len(data) {
		return -1
	}
	switch c := data[i]; {
	case c == '"':
		return s.SkipString(data, i)
	case c == '{':
		return s.skipObject(data, i, depth+1)
	case c == '[':
		return s.skipArray(data, i, depth+1)
	case c == '-' || (c >= '0' && c <= '9'):
		if s.NonFinite && c == '-' && i+1 < len(data) && data[i+1] == 'I' {
			return SkipLiteral(data, i, "-Infinity")
		}
		return SkipNumber(data, i)
	case s.NonFinite && c == 'N':
		return SkipLiteral(data, i, "NaN")
	case s.NonFinite && c == 'I':
		return SkipLiteral(data, i, "Infinity")
	case c == 't':
		return SkipLiteral(data, i, "true")
	case c == 'f':
		return SkipLiteral(data, i, "false")
	case c == 'n':
		return SkipLiteral(data, i, "null")
	}
	return -1
}

// skipArray checks the array whose '[' is at data[i], itself at depth.
func (s Syntax) skipArray(data []byte, i, depth int) int {
	if depth > s.MaxDepth {
		return -1
	}
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return i + 1
	}
	for {
		i = s.SkipValue(data, i, depth)
		if i < 0 {
			return -1
		}
		i = SkipSpace(data, i)
		if i >= len(data) {
			return -1
		}
		switch data[i] {
		case ',':
			i = SkipSpace(data, i+1)
		case ']':
			return i + 1
		default:
			return -1
		}
	}
}

// skipObject checks the object whose '{' is at data[i], itself at depth.
func (s Syntax) skipObject(data []byte, i, depth int) int {
	return s.object(data, i, depth, nil)
}

// Members checks the object whose '{' is at data[i] (a top-level value) and
// calls member with each member's key (quotes included) and value, in order,
// once both are checked. It returns the index just after the '}', or -1; on
// -1, member has seen the members before the fault (so a caller reading a
// cut line gets those that came whole before the cut).
func (s Syntax) Members(data []byte, i int, member func(key, value []byte)) int {
	if i >= len(data) || data[i] != '{' {
		return -1
	}
	return s.object(data, i, 1, member)
}

// object is skipObject, reporting each member to member when not nil.
func (s Syntax) object(data []byte, i, depth int, member func(key, value []byte)) int {
	if depth > s.MaxDepth {
		return -1
	}
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1
	}
	for {
		key := i
		i = s.SkipString(data, i)
		if i < 0 {
			return -1
		}
		keyEnd := i
		i = SkipSpace(data, i)
		if i >= len(data) || data[i] != ':' {
			return -1
		}
		value := SkipSpace(data, i+1)
		i = s.SkipValue(data, value, depth)
		if i < 0 {
			return -1
		}
		if member != nil {
			member(data[key:keyEnd], data[value:i])
		}
		i = SkipSpace(data, i)
		if i >= len(data) {
			return -1
		}
		switch data[i] {
		case ',':
			i = SkipSpace(data, i+1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}
