package codec

import (
	"math"
	"strconv"
)

// appendFloat appends f the way Python's repr(float) writes it, so that the
// Python SDK's json.dumps produces the same bytes: the shortest digits that
// round-trip; positional notation when the decimal exponent x satisfies
// -4 <= x < 16, always with a fraction ("1.0", "-0.0"); otherwise
// scientific notation with a sign and at least two exponent digits
// ("1e+16", "1e-05", "1.5e+300"). f must be finite.
func appendFloat(dst []byte, f float64) []byte {
	var scratch [32]byte
	// Go's 'e' with precision -1 gives the shortest round-trip digits in
	// the same exponent format as Python: d[.ddd]e±XX.
	sci := strconv.AppendFloat(scratch[:0], f, 'e', -1, 64)
	mant, exp := splitExponent(sci)
	if exp < -4 || exp >= 16 {
		return append(dst, sci...)
	}
	if mant[0] == '-' {
		dst = append(dst, '-')
		mant = mant[1:]
	}
	// mant is "d" or "d.ddd"; collect its digits.
	var digitBuf [20]byte
	digits := append(digitBuf[:0], mant[0])
	if len(mant) > 2 {
		digits = append(digits, mant[2:]...)
	}
	if exp < 0 {
		dst = append(dst, '0', '.')
		for i := -1; i > exp; i-- {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	intLen := exp + 1
	if len(digits) <= intLen {
		dst = append(dst, digits...)
		for i := len(digits); i < intLen; i++ {
			dst = append(dst, '0')
		}
		return append(dst, '.', '0')
	}
	dst = append(dst, digits[:intLen]...)
	dst = append(dst, '.')
	return append(dst, digits[intLen:]...)
}

// splitExponent splits Go's 'e' output into mantissa and decimal exponent.
func splitExponent(sci []byte) (mant []byte, exp int) {
	for i := len(sci) - 1; i >= 0; i-- {
		if sci[i] == 'e' {
			sign := 1
			j := i + 1
			if sci[j] == '-' {
				sign = -1
			}
			for _, c := range sci[j+1:] {
				exp = exp*10 + int(c-'0')
			}
			return sci[:i], sign * exp
		}
	}
	return sci, 0
}

func nonFinite(f float64) error {
	switch {
	case math.IsNaN(f):
		return because(ErrNonFinite, "NaN is not transferable")
	case f > 0:
		return because(ErrNonFinite, "Infinity is not transferable")
	default:
		return because(ErrNonFinite, "-Infinity is not transferable")
	}
}

func isFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
