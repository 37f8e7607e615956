package codec

import (
	"errors"
	"strconv"
	"strings"
)

// Sentinel conditions. Every error returned by Marshal, MarshalArgs, Append
// and Unmarshal is a *PathError whose Err matches exactly one of these with
// errors.Is.
var (
	// ErrNotTransferable: a Go value of a type outside the transferable set
	// (struct, func, chan, pointer other than *big.Int, array, ...).
	ErrNotTransferable = errors.New("not transferable")
	// ErrNonFinite: NaN, +Inf or -Inf, when encoding a float or when the
	// input holds NaN/Infinity tokens or a number that overflows float64.
	ErrNonFinite = errors.New("non-finite float")
	// ErrNonStringKey: a map key that is not a string.
	ErrNonStringKey = errors.New("non-string map key")
	// ErrReservedKey: a map whose only key is "__bytes__" with a string
	// value; it would read back as bytes, so it is refused (see doc.go).
	ErrReservedKey = errors.New("reserved __bytes__ wrapper")
	// ErrInvalidUTF8: a string (or map key) that is not valid UTF-8, or a
	// \u escape naming a lone surrogate.
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
	// ErrTooDeep: lists and maps nested deeper than MaxDepth.
	ErrTooDeep = errors.New("nesting too deep")
	// ErrIntTooLong: an integer with more than MaxIntDigits decimal digits.
	ErrIntTooLong = errors.New("integer too long")
	// ErrSyntax: input that is not exactly one JSON value.
	ErrSyntax = errors.New("invalid JSON")
	// ErrDuplicateKey: an object naming the same key twice.
	ErrDuplicateKey = errors.New("duplicate key")
	// ErrInvalidBytes: a {"__bytes__": s} wrapper whose s is not canonical
	// standard base64 with padding.
	ErrInvalidBytes = errors.New("invalid __bytes__ base64")
	// ErrFrameTooLarge: a frame over MaxFrameSize (see CheckFrameSize).
	ErrFrameTooLarge = errors.New("frame too large")
)

// PathError reports where in a value encoding or decoding failed.
// Path is rooted at "value" (Marshal, Unmarshal) or "args" (MarshalArgs);
// list elements add "[i]", map entries add the key quoted as a JSON string:
// args[2]["x"]. Err matches one of the sentinels above with errors.Is.
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string { return "codec: " + e.Path + ": " + e.Err.Error() }
func (e *PathError) Unwrap() error { return e.Err }

// reason is a sentinel plus the specific text shown to the user
// ("NaN is not transferable"); errors.Is sees the sentinel.
type reason struct {
	kind error
	text string
}

func (r *reason) Error() string { return r.text }
func (r *reason) Unwrap() error { return r.kind }

func because(kind error, text string) error { return &reason{kind: kind, text: text} }

// SyntaxError is the Err of a *PathError for malformed input; Offset is the
// byte offset in the input where the problem was found.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return "invalid JSON: " + e.Msg + " at offset " + strconv.Itoa(e.Offset)
}
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// pathTrace collects path segments while an error unwinds, innermost first,
// so the success path never pays for path bookkeeping.
type pathTrace struct {
	segs []string
	err  error
}

func fail(err error) *pathTrace { return &pathTrace{err: err} }

func (t *pathTrace) index(i int) *pathTrace {
	t.segs = append(t.segs, "["+strconv.Itoa(i)+"]")
	return t
}

func (t *pathTrace) key(k string) *pathTrace {
	t.segs = append(t.segs, "["+quoteKey(k)+"]")
	return t
}

func (t *pathTrace) rooted(root string) *PathError {
	var b strings.Builder
	b.WriteString(root)
	for i := len(t.segs) - 1; i >= 0; i-- {
		b.WriteString(t.segs[i])
	}
	return &PathError{Path: b.String(), Err: t.err}
}

// quoteKey renders a key as a canonical JSON string for a path; invalid
// UTF-8 (which is what may have caused the error) shows as U+FFFD.
func quoteKey(k string) string {
	return string(AppendString(nil, strings.ToValidUTF8(k, "\uFFFD")))
}

// MaxFrameSize is the soft cap on one frame of the dual protocol (1 MiB).
const MaxFrameSize = 1 << 20

// FrameSizeError is returned by CheckFrameSize. Its text is fixed by the
// protocol: "frame size N > 1048576".
type FrameSizeError struct{ Size int }

func (e *FrameSizeError) Error() string {
	return "frame size " + strconv.Itoa(e.Size) + " > " + strconv.Itoa(MaxFrameSize)
}
func (e *FrameSizeError) Unwrap() error { return ErrFrameTooLarge }

// CheckFrameSize returns a *FrameSizeError (errors.Is ErrFrameTooLarge)
// when a frame of n bytes exceeds MaxFrameSize, else nil.
func CheckFrameSize(n int) error {
	if n > MaxFrameSize {
		return &FrameSizeError{Size: n}
	}
	return nil
}
