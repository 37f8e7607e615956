package codec

// Constants of the judge protocol that both ends use: the relay (package
// dual, package judge) and the Go SDK. Each is defined here once; see
// docs/protocol/judge.md.

// ResultMarker is the line an evaluator prints before its result line.
const ResultMarker = "---RESULT---"

// ResultNonceEnv names the environment variable in which the judge gives
// the evaluator its run's result nonce. The SDKs then write their marker as
// SignedResultMarker(nonce): a line the solution cannot make the evaluator
// print, since it never sees the nonce.
const ResultNonceEnv = "TETHER_RESULT_NONCE"

// SignedResultMarker is the marker line that carries the run's nonce.
func SignedResultMarker(nonce string) string { return ResultMarker + " " + nonce }

// Error codes of error frames.
const (
	CodeNotFound    = "NotFound"    // no such function or capability
	CodeRejected    = "Rejected"    // a frame or value the receiver refuses
	CodeCallTimeout = "CallTimeout" // the deadline passed
	CodeException   = "Exception"   // the callee raised
	CodeSystemError = "SystemError" // the judge or the other side failed
)
