package codec

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"slices"
	"strconv"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of lists and maps that Marshal and
// Unmarshal accept: a bare scalar has depth 0, "[]" depth 1, "[[1]]" depth 2.
// It keeps hostile input (and cyclic Go values) from exhausting the stack,
// and stays below what Python's json module can decode under its default
// recursion limit.
const MaxDepth = 512

// MaxIntDigits caps the decimal digits of an integer (sign not counted),
// matching Python's default int max_str_digits, because converting longer
// decimal strings is quadratic.
const MaxIntDigits = 4300

const bytesKey = "__bytes__"

// Marshal encodes v in the canonical compact form (see doc.go). Errors are
// *PathError with paths rooted at "value". Safe for concurrent use; the
// result is a new slice owned by the caller.
func Marshal(v any) ([]byte, error) {
	return Append(nil, v)
}

// Append is Marshal appending to dst, so callers can reuse a buffer. On
// error the returned slice is dst, unchanged in length.
func Append(dst []byte, v any) ([]byte, error) {
	out, trace := encodeValue(dst, v, 0)
	if trace != nil {
		return dst, trace.rooted("value")
	}
	return out, nil
}

// MarshalArgs encodes args as one JSON array (nil encodes as "[]"). Errors
// are *PathError with paths rooted at "args": args[2]["x"].
func MarshalArgs(args []any) ([]byte, error) {
	out, trace := encodeList(nil, args, 0)
	if trace != nil {
		return nil, trace.rooted("args")
	}
	return out, nil
}

// encodeValue appends v, nested depth containers deep. The common concrete
// types are handled here without reflection.
func encodeValue(dst []byte, v any, depth int) ([]byte, *pathTrace) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		if x {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case string:
		return appendValidString(dst, x)
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case float64:
		if !isFinite(x) {
			return dst, fail(nonFinite(x))
		}
		return appendFloat(dst, x), nil
	case []any:
		return encodeList(dst, x, depth)
	case map[string]any:
		return encodeMap(dst, x, depth)
	case []byte:
		return appendBytes(dst, x), nil
	case *big.Int:
		return appendBigInt(dst, x)
	case json.Number:
		return appendNumber(dst, x)
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int16:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int8:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case uint64:
		return strconv.AppendUint(dst, x, 10), nil
	case uint:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint32:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint16:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint8:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case float32:
		f := float64(x)
		if !isFinite(f) {
			return dst, fail(nonFinite(f))
		}
		return appendFloat(dst, f), nil
	}
	return encodeReflect(dst, v, depth)
}

func tooDeep() *pathTrace {
	return fail(because(ErrTooDeep, "nesting too deep (more than MaxDepth "+strconv.Itoa(MaxDepth)+")"))
}

func encodeList(dst []byte, list []any, depth int) ([]byte, *pathTrace) {
	if depth >= MaxDepth {
		return dst, tooDeep()
	}
	dst = append(dst, '[')
	for i, elem := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		var trace *pathTrace
		if dst, trace = encodeValue(dst, elem, depth+1); trace != nil {
			return dst, trace.index(i)
		}
	}
	return append(dst, ']'), nil
}

func encodeMap(dst []byte, m map[string]any, depth int) ([]byte, *pathTrace) {
	if depth >= MaxDepth {
		return dst, tooDeep()
	}
	if len(m) == 1 {
		if s, ok := m[bytesKey]; ok && isStringValue(s) {
			return dst, reservedKey()
		}
	}
	var keyBuf [16]string
	keys := keyBuf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		if !utf8.ValidString(k) {
			return dst, fail(invalidUTF8(k, "index", 0)).key(k)
		}
		dst = AppendString(dst, k)
		dst = append(dst, ':')
		var trace *pathTrace
		if dst, trace = encodeValue(dst, m[k], depth+1); trace != nil {
			return dst, trace.key(k)
		}
	}
	return append(dst, '}'), nil
}

func reservedKey() *pathTrace {
	return fail(because(ErrReservedKey,
		`a map whose only key is "__bytes__" with a string value is reserved for bytes`))
}

func appendBytes(dst []byte, b []byte) []byte {
	dst = slices.Grow(dst, len(`{"__bytes__":""}`)+base64.StdEncoding.EncodedLen(len(b)))
	dst = append(dst, `{"__bytes__":"`...)
	dst = appendBase64(dst, b)
	return append(dst, '"', '}')
}

func appendBigInt(dst []byte, x *big.Int) ([]byte, *pathTrace) {
	if x == nil {
		return dst, fail(because(ErrNotTransferable, "nil *big.Int is not transferable"))
	}
	if x.IsInt64() {
		return strconv.AppendInt(dst, x.Int64(), 10), nil
	}
	start := len(dst)
	dst = x.Append(dst, 10)
	digits := len(dst) - start
	if x.Sign() < 0 {
		digits--
	}
	if digits > MaxIntDigits {
		return dst[:start], fail(intTooLong(digits))
	}
	return dst, nil
}

func intTooLong(digits int) error {
	return because(ErrIntTooLong, "integer has "+strconv.Itoa(digits)+
		" digits, more than MaxIntDigits "+strconv.Itoa(MaxIntDigits))
}

// appendNumber writes a json.Number in canonical form: an integer when it
// has no fraction or exponent, else a float ("1e2" → 100.0).
func appendNumber(dst []byte, n json.Number) ([]byte, *pathTrace) {
	d := decoder{data: []byte(n)}
	v, err := d.number()
	if err == nil && d.pos != len(d.data) {
		err = d.syntaxError("trailing data after number")
	}
	if err != nil {
		if errors.Is(err.err, ErrSyntax) {
			return dst, fail(because(ErrNotTransferable, "json.Number "+strconv.Quote(string(n))+
				" is not a JSON number"))
		}
		return dst, err
	}
	return encodeValue(dst, v, 0)
}
