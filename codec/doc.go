// Package codec encodes and decodes the transferable values of the dual
// protocol (docs/protocol/judge.md, "Transferable values"): the only data that may
// cross between an evaluator and a solution.
//
// # Values
//
//	wire JSON                      decoded Go value      also encodable from
//	null                           nil
//	true / false                   bool
//	integer (no '.', no exponent)  int64, or *big.Int    int, intN, uintN, json.Number
//	                               outside int64
//	number with '.' or exponent    float64 (finite)      float32, json.Number
//	string (valid UTF-8)           string
//	{"__bytes__": "<base64>"}      []byte
//	array                          []any                 []T of encodable T
//	object with string keys        map[string]any        map[K]T, K string-kinded;
//	                                                     map[any]T with string keys
//
// Nothing else is transferable: structs, pointers (except *big.Int),
// arrays (like Python tuples they would come back as lists), funcs, chans,
// json.RawMessage. NaN and ±Inf are refused on both sides; the codec never
// writes or accepts the non-standard tokens NaN, Infinity, -Infinity.
// Integers are exact at any size up to MaxIntDigits digits: 1 stays an int,
// 1.0 stays a float.
//
// # Canonical form
//
// Marshal writes exactly the bytes that Python's
//
//	json.dumps(v, separators=(",", ":"), ensure_ascii=False, sort_keys=True, allow_nan=False)
//
// writes for the equivalent Python value (bytes becoming the wrapper), so
// both SDKs agree byte-for-byte:
//   - no whitespace; map keys sorted by code point (= UTF-8 byte order);
//   - strings keep non-ASCII as UTF-8 (U+2028 too); only '"', '\\' and
//     control characters are escaped: \" \\ \n \r \t \b \f, the rest as
//     \u00xx with lowercase hex; '<', '>', '&' and DEL are not escaped;
//   - floats as Python's repr: shortest round-trip digits, positional with
//     a fraction when the decimal exponent x is in -4 <= x < 16 ("0.0001",
//     "1e-05", "1000000000000000.0", "1e+16", "-0.0", "5e-324");
//   - bytes as {"__bytes__":"..."} in standard base64 with padding.
//
// The shared test vectors in testdata/codec/vectors.json pin this form.
//
// # Decoding
//
// Unmarshal is strict: exactly one JSON value with optional surrounding
// whitespace, no trailing data, no duplicate keys in an object, no raw
// control characters or invalid UTF-8 in strings, no lone surrogate \u
// escapes, nesting at most MaxDepth lists/maps deep, integers of at most
// MaxIntDigits digits, numbers that do not overflow float64. Non-canonical
// but valid input is accepted (spaces, \u escapes, "1e2" → float64 100).
//
// # The __bytes__ collision
//
// An object whose only key is "__bytes__" with a string value always
// decodes to []byte, and its string must be canonical standard base64 with
// padding (no line breaks, zero trailing bits) or decoding fails with
// ErrInvalidBytes. An object with "__bytes__" and other keys, or with a
// non-string "__bytes__" value, is an ordinary map.
//
// So that nothing changes type silently in a round trip, Marshal refuses a
// user map whose only key is "__bytes__" with a string value (ErrReservedKey)
// instead of letting it come back as bytes; maps with other keys besides
// "__bytes__", or a non-string value under it, round-trip as maps.
//
// # Errors
//
// Every encode and decode error is a *PathError naming where it happened,
// with an Err that matches one sentinel (ErrNotTransferable, ErrNonFinite,
// ErrNonStringKey, ErrReservedKey, ErrInvalidUTF8, ErrTooDeep, ErrIntTooLong,
// ErrSyntax, ErrDuplicateKey, ErrInvalidBytes) via errors.Is:
//
//	codec: args[1]["k"]: NaN is not transferable
//
// Syntax errors carry a *SyntaxError with the byte offset. CheckFrameSize
// enforces the 1 MiB frame cap with the protocol's fixed text
// "frame size N > 1048576" (ErrFrameTooLarge).
//
// All functions are safe for concurrent use and keep no reference to their
// arguments.
package codec
