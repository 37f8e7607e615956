// Package jsonrpcbench compares tether's JSON-RPC peer with
// creachadair/jrpc2, sourcegraph/jsonrpc2 and a hand-written
// encoding/json + bufio exchange, all over the same in-memory pipe
// (net.Pipe) with newline-delimited framing. It is a separate module so
// that the peer libraries stay out of tether's own go.mod.
//
// Run from this directory:
//
//	go test -run XXX -bench . -benchmem
package jsonrpcbench
