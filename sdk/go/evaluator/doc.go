// Package evaluator is the Go SDK for the evaluator side of the judge
// protocol (docs/protocol/judge.md): a trusted program that calls the solution's
// functions, offers capabilities to it, and prints the result.
//
// A Runner speaks newline-delimited JSON frames over stdin/stdout (or any
// reader and writer, for tests). Call writes a `call` frame with a uuid4
// hex id and waits for the `result` or `error` with that id; responses are
// routed by id on the Runner's one reading goroutine, so any number of
// goroutines may have calls in flight at once. Deadlines belong to the
// judge: a timed-out call fails with an error matching ErrCallTimeout
// (code CallTimeout). Remote failures are *CallError values matching
// ErrNotFound, ErrRejected, ErrCallTimeout, ErrException or ErrSystem with
// errors.Is; a closed channel matches ErrClosed. A response the codec
// refuses (a NaN value, a duplicate key, ...) fails its call with code
// Rejected and the codec's reason (`value: NaN is not transferable`).
//
// RegisterCapability writes `cap_reg` and answers `capability` frames, each
// in its own goroutine; a capability frame whose arguments the codec
// refuses is answered Rejected ("undecodable capability: " and the reason).
//
// Accept, WrongAnswer, PartiallyCorrect, RuntimeError and SystemError write
// the result marker and the payload once, together and flushed; the marker
// carries the run's nonce from TETHER_RESULT_NONCE (`---RESULT--- NONCE`),
// so nothing the evaluator prints can pass for its result. Print human-readable output
// to stdout only as whole lines (it becomes the result's output) and logs
// to stderr.
//
// Frames written by concurrent calls are combined into as few writes as
// possible; a Runner's methods are all safe for concurrent use.
package evaluator
