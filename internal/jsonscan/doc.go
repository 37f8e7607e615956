// Package jsonscan validates JSON text (RFC 8259) in one pass without
// allocating and reports where each value ends, so that callers can keep
// spans of their own buffer instead of decoding.
//
// The contract:
//
//   - Every Skip function takes the buffer and the index where the thing to
//     skip starts (no leading white space), and returns the index just after
//     it, or -1 if the bytes there are not that thing. A -1 says nothing
//     about where the error is; callers only ever stop.
//   - SkipSpace skips the four JSON white-space bytes and never fails.
//   - SkipNumber and SkipLiteral check one number or one of true/false/null.
//   - Syntax carries the choices callers make differently:
//     MaxDepth bounds nesting (a container deeper than MaxDepth is not
//     valid, which keeps a line of a million '[' from exhausting the stack;
//     DefaultMaxDepth is encoding/json's limit), and UTF8 says whether the
//     bytes inside strings must be valid UTF-8 (encoding/json's Valid does
//     not check this, utf8.Valid does; JSON outside strings is ASCII), and
//     NonFinite admits Python's NaN, Infinity and -Infinity as numbers.
//   - Syntax.SkipString checks one string starting at its opening quote.
//   - Syntax.SkipValue checks one value of any kind; its depth argument is
//     the nesting level of the container holding the value (0 at the top
//     level), so a container starting at i is at depth+1.
//   - Syntax.Members checks a top-level object and hands each member's key
//     and value to the caller, for those that read a few members without
//     decoding.
//   - Syntax.Valid reports whether the whole buffer is exactly one value
//     with optional white space around it.
//
// With UTF8 false, Syntax{MaxDepth: DefaultMaxDepth}.Valid agrees with
// json.Valid on every input; with UTF8 true it agrees with
// json.Valid(b) && utf8.Valid(b).
//
// Nothing here keeps state: every function may be called from any number
// of goroutines at once, and none retains or writes the buffer.
package jsonscan
