// Package wire moves frames over byte streams and knows nothing of JSON.
//
// Two framings carry every protocol of tether:
//
//   - Newline-delimited: one frame per line, ended by "\n" (a trailing "\r"
//     is dropped, a final line without "\n" still counts). LineReader caps
//     the length of a line; a longer line is reported as *LineTooLongError,
//     skipped up to its newline without ever being held whole, and reading
//     goes on with the next line. The dual protocol (judge) and JSON-RPC over
//     stdio use it.
//   - Length-prefixed: a 4-byte big-endian unsigned length N, then N bytes of
//     payload. FrameReader checks N against its maximum before allocating
//     anything and reads the whole header and body even across short reads.
//     The LM handler (rlm's protocol) uses it.
//
// Readers are not safe for concurrent use and return slices that stay valid
// only until their next call. Writers are safe for concurrent use and hand
// each frame, terminator or header included, to the underlying writer in one
// Write call, so frames from different goroutines never interleave.
package wire

import "errors"

// DefaultMaxLine is the line cap of a LineReader made with maxLine <= 0.
const DefaultMaxLine = 4 << 20

// DefaultMaxFrame is the payload cap of a FrameReader or FrameWriter made
// with maxFrame <= 0.
const DefaultMaxFrame = 64 << 20

// ErrTooLarge matches (errors.Is) both *LineTooLongError and
// *FrameTooLargeError.
var ErrTooLarge = errors.New("wire: frame too large")

// ErrWouldBlock is what a non-blocking source's Read returns when it has no
// bytes now (and would otherwise block). LineReader passes it on without
// ending the stream or losing a partly read line; see ReadLine.
var ErrWouldBlock = errors.New("wire: no input now (would block)")

// ErrNewline is returned by LineWriter.WriteLine for a frame that contains
// a newline, which would split it into two frames on the other side.
var ErrNewline = errors.New("wire: frame contains a newline")
