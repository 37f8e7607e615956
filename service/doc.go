// Package service offers tether's judge and LM handler as JSON-RPC 2.0
// methods (docs/serve.md, "The judge service methods"):
//
//	judge.run      {problem, solution, submission_id?} -> the judge result
//	judge.cancel   {submission_id}                    -> {cancelled}
//	lm.complete    an rlm LMRequest                   -> an LMResponse
//	tether.version (no params)                        -> {version, protocols}
//
// judge.run's problem is a folder path or an inline bundle
// {"files": {"problem.json": "...", "evaluate.py": "..."}}; its solution is
// {"language"?, "code"} or {"language"?, "path"}. While it runs the client
// gets $/progress notifications: {"phase":"started"}, then
// {"phase":"running","calls","elapsed_ms"} after each completed call and
// {"phase":"running","evaluator_line"} for each line the evaluator prints,
// and {"phase":"finished",...} before the result. Progress never slows the
// run: notifications wait in a bounded queue; when the client reads too
// slowly, intermediate ones are coalesced (and counted in "dropped"), but
// the latest state, "finished" included, is always sent. A run stops early on
// judge.cancel, on $/cancelRequest or when the connection closes; it is then
// answered with -32800.
//
// The service logs each run's start, end, refusal or cancellation with the
// request's trace_id (params._meta.traceId or traceparent) when it has one.
// Options.AllowedCommands is the allow-list of evaluator commands.
//
// A Service is safe for concurrent use by any number of connections;
// submission ids are unique across all of them while their runs are in
// flight.
package service
