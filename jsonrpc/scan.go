package jsonrpc

import "github.com/tether-dev/tether/internal/jsonscan"

// The envelope parser validates JSON text and takes the spans of values
// without building them, so that no envelope is decoded through reflection
// and every span points into the caller's buffer. The grammar is jsonscan's;
// these names keep the parser's call sites short.

// maxDepth bounds nesting like encoding/json does, so a line of ten million
// '[' cannot exhaust the stack.
const maxDepth = jsonscan.DefaultMaxDepth

// messageSyntax is what a line must be: exactly what encoding/json accepts,
// which does not require strings to be valid UTF-8 (JSON-RPC peers decode
// bad bytes to U+FFFD, and so does encoding/json when params are bound).
var messageSyntax = jsonscan.Syntax{MaxDepth: maxDepth}

func skipSpace(data []byte, i int) int { return jsonscan.SkipSpace(data, i) }

// skipValue validates the JSON value starting at data[i] (no leading space),
// inside containers nested depth deep, and returns the index just after it,
// or -1 if the bytes are not JSON.
func skipValue(data []byte, i, depth int) int { return messageSyntax.SkipValue(data, i, depth) }

// skipString validates a string starting at the opening quote.
func skipString(data []byte, i int) int { return messageSyntax.SkipString(data, i) }

// validJSON reports whether data holds exactly one JSON value, with optional
// surrounding whitespace.
func validJSON(data []byte) bool { return messageSyntax.Valid(data) }
