package jsonrpc

// A strict RFC 8259 scanner that validates JSON text and reports the spans of
// values without building them. The envelope parser uses it so that no
// envelope is decoded through reflection and every span points into the
// caller's buffer.

// maxDepth bounds nesting like encoding/json does, so a line of ten million
// '[' cannot exhaust the stack.
const maxDepth = 10000

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// skipValue validates the JSON value starting at data[i] (no leading space)
// and returns the index just after it, or -1 if the bytes are not JSON.
func skipValue(data []byte, i, depth int) int {
	if i >= len(data) {
		return -1
	}
	switch c := data[i]; {
	case c == '"':
		return skipString(data, i)
	case c == '{':
		return skipObject(data, i, depth+1)
	case c == '[':
		return skipArray(data, i, depth+1)
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(data, i)
	case c == 't':
		return skipLiteral(data, i, "true")
	case c == 'f':
		return skipLiteral(data, i, "false")
	case c == 'n':
		return skipLiteral(data, i, "null")
	}
	return -1
}

func skipLiteral(data []byte, i int, lit string) int {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// skipString validates a string starting at the opening quote.
func skipString(data []byte, i int) int {
	i++
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 >= len(data) {
				return -1
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(data)-i < 6 || !isHex(data[i+2]) || !isHex(data[i+3]) || !isHex(data[i+4]) || !isHex(data[i+5]) {
					return -1
				}
				i += 6
			default:
				return -1
			}
		case c < 0x20:
			return -1
		default:
			i++
		}
	}
	return -1
}

func skipDigits(data []byte, i int) int {
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	return i
}

func skipNumber(data []byte, i int) int {
	if data[i] == '-' {
		i++
	}
	if i >= len(data) {
		return -1
	}
	switch {
	case data[i] == '0':
		i++
	case data[i] >= '1' && data[i] <= '9':
		i = skipDigits(data, i+1)
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		j := skipDigits(data, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := skipDigits(data, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func skipArray(data []byte, i, depth int) int {
	if depth > maxDepth {
		return -1
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return i + 1
	}
	for {
		i = skipValue(data, i, depth)
		if i < 0 {
			return -1
		}
		i = skipSpace(data, i)
		if i >= len(data) {
			return -1
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			return i + 1
		default:
			return -1
		}
	}
}

func skipObject(data []byte, i, depth int) int {
	if depth > maxDepth {
		return -1
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return -1
		}
		i = skipString(data, i)
		if i < 0 {
			return -1
		}
		i = skipSpace(data, i)
		if i >= len(data) || data[i] != ':' {
			return -1
		}
		i = skipValue(data, skipSpace(data, i+1), depth)
		if i < 0 {
			return -1
		}
		i = skipSpace(data, i)
		if i >= len(data) {
			return -1
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

// validJSON reports whether data holds exactly one JSON value, with optional
// surrounding whitespace.
func validJSON(data []byte) bool {
	i := skipValue(data, skipSpace(data, 0), 0)
	return i >= 0 && skipSpace(data, i) == len(data)
}
