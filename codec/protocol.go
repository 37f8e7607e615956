package codec

// Constants of the judge protocol that both ends use: the relay (package
// dual, package judge) and the Go SDK. Each is defined here once; see
// docs/protocol/judge.md.

// ResultMarker is the line an evaluator prints before its result line.
const ResultMarker = "---RESULT---"

// Error codes of error frames.
const (
	CodeNotFound    = "NotFound"    // no such function or capability
	CodeRejected    = "Rejected"    // a frame or value the receiver refuses
	CodeCallTimeout = "CallTimeout" // the deadline passed
	CodeException   = "Exception"   // the callee raised
	CodeSystemError = "SystemError" // the judge or the other side failed
)
