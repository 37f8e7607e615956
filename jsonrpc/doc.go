// Package jsonrpc is a JSON-RPC 2.0 peer: client and server on one
// connection, over newline-delimited JSON (stdio, TCP, Unix sockets),
// 4-byte length-prefixed frames, or HTTP POST with optional server-sent
// events. The wire rules are in docs/serve.md; in short:
//
//   - A request is {"jsonrpc":"2.0","id":ID,"method":M,"params":P}; without
//     "id" it is a notification and is never answered. "id": null is a
//     request. Ids are echoed byte for byte, never through float64.
//   - Envelopes are checked strictly: "jsonrpc" must be "2.0", member names
//     are case-sensitive and unknown members are refused, "params" is an
//     array or object, an id is a string, number or null.
//   - Bytes that are not JSON get -32700 with id null; JSON that is no
//     valid envelope gets -32600 (with its id when it could be read); "[]"
//     is one -32600; a batch gets one array of answers, in any order, or
//     nothing when it held only notifications. A line or length-prefixed
//     frame over the size cap gets -32001 (with the request's id when its
//     first 512 bytes hold it whole, else id null) and is skipped without
//     being held in memory. No bad line ends the connection, and neither
//     does a handler's panic: it is logged and answered -32603.
//   - A request whose id is still in flight gets -32600; the id is free
//     again once answered.
//   - Past MaxConcurrent running and MaxQueue waiting requests the answer is
//     -32000 "server overloaded": per Conn, or across all POSTs of an
//     HTTPHandler.
//   - $/cancelRequest {"id": ID} cancels that handler's context; the answer
//     is then -32800 unless the handler finished anyway. $/progress
//     {"token","value"} is sent by Progress with params._meta.progressToken
//     or the request's id; params._meta.traceId (or traceparent) reaches the
//     handler through TraceID.
//
// Responses are routed to waiting calls on the reading goroutine, never
// behind the handler queue, so a handler may call its peer (and the peer's
// handler may call back) without deadlock.
//
// Buffers: a Channel's Read result is valid until the next Read; a
// Request's Params and ID until its handler returns; Call's result is
// decoded before Call returns; BatchResult.Result belongs to the caller.
package jsonrpc
