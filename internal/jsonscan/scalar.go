package jsonscan

import "unicode/utf8"

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space (space, tab, line feed, carriage return).
func SkipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// SkipLiteral checks that lit (true, false or null) starts at data[i].
func SkipLiteral(data []byte, i int, lit string) int {
	if i < 0 || len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

func skipDigits(data []byte, i int) int {
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	return i
}

// SkipNumber checks the number starting at data[i]: an optional minus, an
// integer part without leading zeros, then optional fraction and exponent.
func SkipNumber(data []byte, i int) int {
	if i < len(data) && data[i] == '-' {
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

// plainStringByte marks the bytes a string holds as they are whatever
// Syntax says: printable ASCII other than '"' and '\\'. Most string bytes
// are these, so the scan costs one load and one branch for them.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// SkipString checks the string whose opening quote is at data[i]. Escapes
// must be well formed; \u escapes are not paired, as encoding/json allows
// lone surrogates. Bytes from 0x80 up are checked as UTF-8 only if s.UTF8.
func (s Syntax) SkipString(data []byte, i int) int {
	if i >= len(data) || data[i] != '"' {
		return -1
	}
	i++
	for i < len(data) {
		c := data[i]
		if plainStringByte[c] {
			i++
			continue
		}
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
		case !s.UTF8:
			i++
		default:
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n == 1 {
				return -1
			}
			i += n
		}
	}
	return -1
}
