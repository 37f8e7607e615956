// Command jsonrpc-calc serves the example methods of the JSON-RPC 2.0
// specification over newline-delimited JSON on stdin and stdout:
//
//	subtract  [minuend, subtrahend] or {"minuend":M,"subtrahend":S} -> M-S
//	sum       [numbers...] -> their sum
//	get_data  -> ["hello", 5]
//	update, notify_*  notifications, accepted and ignored
//
// Try it with: echo '{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}' | go run ./examples/jsonrpc-calc
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/tether-dev/tether/jsonrpc"
)

// subtractParams accepts both shapes of the specification's subtract.
type subtractParams struct {
	Minuend    float64
	Subtrahend float64
}

func (p *subtractParams) UnmarshalJSON(data []byte) error {
	var positional []float64
	if err := json.Unmarshal(data, &positional); err == nil {
		if len(positional) != 2 {
			return fmt.Errorf("want [minuend, subtrahend], got %d numbers", len(positional))
		}
		p.Minuend, p.Subtrahend = positional[0], positional[1]
		return nil
	}
	var named struct {
		Minuend    *float64 `json:"minuend"`
		Subtrahend *float64 `json:"subtrahend"`
	}
	if err := json.Unmarshal(data, &named); err != nil {
		return err
	}
	if named.Minuend == nil || named.Subtrahend == nil {
		return errors.New(`want {"minuend": M, "subtrahend": S}`)
	}
	p.Minuend, p.Subtrahend = *named.Minuend, *named.Subtrahend
	return nil
}

func newMux() *jsonrpc.Mux {
	mux := jsonrpc.NewMux()
	jsonrpc.Register(mux, "subtract", func(_ context.Context, p *subtractParams) (float64, error) {
		if p == nil {
			return 0, jsonrpc.InvalidParams("subtract needs params")
		}
		return p.Minuend - p.Subtrahend, nil
	})
	jsonrpc.Register(mux, "sum", func(_ context.Context, nums []float64) (float64, error) {
		total := 0.0
		for _, n := range nums {
			total += n
		}
		return total, nil
	})
	mux.AddFunc("get_data", func(context.Context, *jsonrpc.Request) (any, error) {
		return []any{"hello", 5}, nil
	})
	accept := func(context.Context, *jsonrpc.Request) (any, error) { return nil, nil }
	for _, name := range []string{"update", "notify_hello", "notify_sum"} {
		mux.AddFunc(name, accept)
	}
	return mux
}

func main() {
	conn := jsonrpc.NewConn(jsonrpc.NDJSON(os.Stdin, os.Stdout, 0), &jsonrpc.Options{Handler: newMux()})
	if err := conn.Wait(); err != nil {
		fmt.Fprintln(os.Stderr, "jsonrpc-calc:", err)
		os.Exit(1)
	}
}
