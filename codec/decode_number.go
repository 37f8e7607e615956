package codec

import (
	"errors"
	"math"
	"math/big"
	"strconv"
)

// number parses a JSON number. Without fraction or exponent it is an
// integer: int64 when it fits, else *big.Int (at most MaxIntDigits digits).
// Otherwise it is a float64, which must be finite.
func (d *decoder) number() (any, *pathTrace) {
	start := d.pos
	if d.data[d.pos] == '-' {
		d.pos++
		if d.hasPrefix("Infinity") {
			return nil, fail(because(ErrNonFinite, "-Infinity is not transferable"))
		}
	}
	digitsStart := d.pos
	switch {
	case d.pos < len(d.data) && d.data[d.pos] == '0':
		d.pos++
	case d.pos < len(d.data) && d.data[d.pos] >= '1' && d.data[d.pos] <= '9':
		d.skipDigits()
	default:
		return nil, d.unexpected("in number (want a digit)")
	}
	digitsEnd := d.pos
	isFloat := false
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		isFloat = true
		d.pos++
		if !d.atDigit() {
			return nil, d.unexpected("after decimal point (want a digit)")
		}
		d.skipDigits()
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		isFloat = true
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if !d.atDigit() {
			return nil, d.unexpected("in exponent (want a digit)")
		}
		d.skipDigits()
	}
	text := d.data[start:d.pos]
	if isFloat {
		return parseFloat(text)
	}
	return parseInt(text, digitsEnd-digitsStart)
}

func (d *decoder) atDigit() bool {
	return d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9'
}

func (d *decoder) skipDigits() {
	for d.atDigit() {
		d.pos++
	}
}

func parseFloat(text []byte) (any, *pathTrace) {
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, fail(because(ErrSyntax, err.Error())) // unreachable: grammar checked above
	}
	if math.IsInf(f, 0) {
		return nil, fail(because(ErrNonFinite, "number "+string(text)+" overflows float64 and is not transferable"))
	}
	return f, nil
}

// parseInt parses a grammar-checked integer with the given digit count.
func parseInt(text []byte, digits int) (any, *pathTrace) {
	if digits <= 18 { // always fits int64: no overflow checks needed
		neg := text[0] == '-'
		var n int64
		for _, c := range text[boolToInt(neg):] {
			n = n*10 + int64(c-'0')
		}
		if neg {
			n = -n
		}
		return n, nil
	}
	if digits > MaxIntDigits {
		return nil, fail(intTooLong(digits))
	}
	if n, err := strconv.ParseInt(string(text), 10, 64); err == nil {
		return n, nil
	}
	b, ok := new(big.Int).SetString(string(text), 10)
	if !ok {
		return nil, fail(because(ErrSyntax, "invalid integer")) // unreachable: grammar checked
	}
	return b, nil
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
