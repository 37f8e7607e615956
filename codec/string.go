package codec

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// needsEscape marks the bytes the canonical form escapes: control
// characters, '"' and '\\'. Non-ASCII, DEL, '<', '>', '&', U+2028 and U+2029
// are written as they are, like Python's json.dumps(ensure_ascii=False).
var needsEscape = func() (t [256]bool) {
	for i := 0; i < 0x20; i++ {
		t[i] = true
	}
	t['"'] = true
	t['\\'] = true
	return t
}()

// AppendString appends s as a JSON string in the canonical form (the
// bytes of needsEscape escaped, everything else as it is). s must be valid
// UTF-8: check it with utf8.Valid, or mend it with bytes.ToValidUTF8. It is
// the one JSON string encoder of codec and of the trace writer.
func AppendString[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		for i+8 <= len(s) && !escapeIn8(load8(s, i)) {
			i += 8
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if !needsEscape[c] {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// load8 is the 8 bytes of s from i, the first in the low byte.
func load8[S ~string | ~[]byte](s S, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// escapeIn8 says whether one of the 8 bytes in x needs escaping (a control
// character, '"' or '\\'), testing them at once: plain text, such as an id,
// is copied 8 bytes per step.
func escapeIn8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	hasZero := func(v uint64) uint64 { return (v - ones) &^ v }
	return (hasZero(x^(ones*'"'))|hasZero(x^(ones*'\\'))|(x-ones*0x20)&^x)&highs != 0
}

// appendValidString appends s, or fails with ErrInvalidUTF8 naming the
// first bad byte.
func appendValidString(dst []byte, s string) ([]byte, *pathTrace) {
	if !utf8.ValidString(s) {
		return dst, fail(invalidUTF8(s, "index", 0))
	}
	return AppendString(dst, s), nil
}

// invalidUTF8 is the error for s, which is not valid UTF-8: it names s's
// first bad byte and where that is, as an "index" of s (a string being
// encoded) or an "offset" of the input s was read from, s[0] at base.
func invalidUTF8(s string, where string, base int) error {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		i += size
	}
	return because(ErrInvalidUTF8, "string is not valid UTF-8 (byte 0x"+
		string([]byte{hexDigits[s[i]>>4], hexDigits[s[i]&0xf]})+" at "+where+" "+strconv.Itoa(base+i)+")")
}

func appendBase64(dst []byte, b []byte) []byte {
	return base64.StdEncoding.AppendEncode(dst, b)
}

// decodeBase64 accepts only canonical standard base64 with padding: the
// encoding package would also skip CR/LF, which we refuse so that every
// byte string has exactly one wire form.
func decodeBase64(s []byte) ([]byte, error) {
	if bytes.ContainsAny(s, "\r\n") {
		return nil, because(ErrInvalidBytes, "invalid base64 in __bytes__: line break")
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Strict().Decode(out, s)
	if err != nil {
		return nil, because(ErrInvalidBytes, "invalid base64 in __bytes__: "+err.Error())
	}
	return out[:n], nil
}
