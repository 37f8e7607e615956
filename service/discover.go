package service

import (
	"reflect"

	"github.com/tether-dev/tether/internal/version"
	"github.com/tether-dev/tether/jsonrpc"
	"github.com/tether-dev/tether/lm"
)

// describe adds what rpc.discover tells a client about each method
// (docs/serve.md is the same in prose; a test keeps the two in step) and
// registers rpc.discover itself.
func describe(mux *jsonrpc.Mux) {
	mux.Describe("judge.run", jsonrpc.MethodDoc{Summary: "Judge a solution against a problem; $/progress notifications while it runs, then the result object"})
	mux.Describe("judge.cancel", jsonrpc.MethodDoc{Summary: "Stop the run of a submission id; its judge.run is answered with -32800"})
	mux.Describe("lm.complete", jsonrpc.MethodDoc{Summary: "Ask the configured LM handler for a completion (rlm's LMRequest and LMResponse)",
		Result: reflect.TypeFor[lm.Response]()})
	mux.Describe("tether.version", jsonrpc.MethodDoc{Summary: "tether's version and the versions of the protocols it speaks",
		Result: reflect.TypeFor[VersionResult]()})
	jsonrpc.AddDiscover(mux, jsonrpc.DiscoverInfo{Title: "tether serve", Version: version.Version})
}
