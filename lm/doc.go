// Package lm is tether's LM handler: sandboxed code asks the host for
// language-model completions over rlm's protocol, and the handler owns the
// model clients, their keys, the routing, the limits and the bill.
//
// # Wire
//
// Each message is a 4-byte big-endian length N, then N bytes of UTF-8 JSON
// (one object), both ways (package wire). A request is
//
//	{"prompt": str | [message, ...]}  or  {"prompts": [str | [message, ...], ...]}
//
// plus an optional "model" and a "depth" (missing reads as -1). It is a
// batch only when "prompts" is a non-empty list. The response always has the
// three keys "chat_completion", "chat_completions" and "error", two of them
// null. A completion is {"root_model", "prompt" (the request's bytes,
// verbatim), "response", "usage_summary", "execution_time"} plus "error" on
// a failed slot of a batch (then "response" is "", the usage empty, the time
// 0, and the text "llm() call failed - <reason>"); the other slots succeed.
// Usage is {"model_usage_summaries": {MODEL: {"total_calls",
// "total_input_tokens", "total_output_tokens", "total_cost"?}}, "total_cost"?}.
//
// rlm's fixed error texts are kept: "Request must be a JSON object" and
// "Missing 'prompt' or 'prompts' in request."; otherwise the error's text.
//
// # Connections
//
// A connection carries any number of requests in sequence; rlm's clients,
// which send one and close, work unchanged. A clean close before a header
// ends the connection quietly. The server reads every header fully and
// answers, then closes, on: a declared length over Options.MaxFrame (64 MiB
// by default), a body that is not JSON, or JSON that is not an object. An
// object with a field of the wrong type ("depth": "1", "prompts": "x") is
// answered with an error naming the field ("request: depth: want an
// integer, got string") and the connection stays open, as after any other
// bad request. A
// peer that stops mid-frame is cut off after Options.ReadTimeout; one that
// sends nothing after Options.IdleTimeout. None of this disturbs other
// connections.
//
// # Routing, limits, usage
//
// A Router picks a backend by model name and depth (rlm's rules by
// default: a model name with a backend of that name wins, depth 1 goes to
// the "other" backend, everything else to the default). A model name that
// no backend or rule serves is an error (ErrUnknownModel) at every depth
// unless a fallback backend is configured. At most
// Options.MaxInFlight backend calls run at once across all connections
// (default 16), and at most Options.BatchConcurrency prompts of one batch
// (default 16). A Budget refuses calls once spent. Usage is kept per model,
// per connection (Options.ConnDone) and for the handler (Server.Usage), and
// each completion carries its own call's usage.
//
// Addresses are "HOST:PORT" or "unix:PATH" everywhere (ParseAddr, Listen,
// the CLI, TETHER_LM_ADDR in the Python SDK), so a sandbox without network
// reaches the handler through one bind-mounted socket file.
package lm
