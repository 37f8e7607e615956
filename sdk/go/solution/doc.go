// Package solution is the Go SDK for the solution side of the judge
// protocol (docs/protocol/judge.md): a host that serves registered functions to the
// evaluator and may call the evaluator's capabilities.
//
// Serve writes `ready` first, then answers each `call` frame with `result`
// or `error` (NotFound "function 'NAME' not registered", Rejected for
// values outside the transferable contract or frames over 1 MiB, Exception
// for a returned error or a panic, with the stack as trace). A call whose
// arguments the codec refuses (NaN, a duplicate key, ...) is answered
// Rejected with the codec's reason, `args[0]: NaN is not transferable`, and
// a capability response it refuses fails that capability call the same
// way. It returns at
// stdin EOF, the judge's signal to exit, after the running calls finish.
//
// Calls run concurrently by default, each in its own goroutine as soon as
// it arrives; Options.Sequential runs them one at a time in arrival order
// like the Python host. CallCapability may be used from inside a call
// (responses are routed on the reading goroutine, never behind a call).
//
// A program built on this package can be a problem's solution host: set
// runtime_config.solution.command to it; the submitted file's path is in
// TETHER_SOLUTION_ENTRY. Never print to stdout directly: it is the protocol
// channel; use Host.Log, which the judge keeps and forwards.
package solution
