// Command solution is a solution written in Go: a solution host built on
// the Go SDK (package sdk/go/solution) that serves add(a, b) to the
// evaluator of examples/gosolution. Build it and judge the binary:
//
//	go build -o /tmp/add ./examples/gosolution/solution
//	go run ./cmd/tether judge examples/gosolution /tmp/add
//
// The problem's runtime_config.solution.command runs the submitted file
// (placed in the sandbox's work dir under the name TETHER_SOLUTION_ENTRY
// gives) instead of the Python host.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/tether-dev/tether/sdk/go/solution"
)

func add(_ context.Context, args []any) (any, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("add takes 2 arguments, got %d", len(args))
	}
	a, okA := args[0].(int64)
	b, okB := args[1].(int64)
	if !okA || !okB {
		return nil, fmt.Errorf("add takes two integers, got %T and %T", args[0], args[1])
	}
	return a + b, nil
}

func main() {
	solution.Register("add", add)
	// Never print to stdout: it carries the protocol. Serve returns when
	// the judge closes stdin.
	if err := solution.Serve(); err != nil {
		fmt.Fprintln(os.Stderr, "solution:", err)
		os.Exit(1)
	}
}
