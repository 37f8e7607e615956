package jsonrpc_test

import (
	"context"
	"fmt"
	"net"

	"github.com/tether-dev/tether/jsonrpc"
)

func Example() {
	mux := jsonrpc.NewMux()
	jsonrpc.Register(mux, "subtract", func(_ context.Context, p [2]int) (int, error) {
		return p[0] - p[1], nil
	})
	a, b := net.Pipe()
	server := jsonrpc.NewConn(jsonrpc.NDJSON(a, a, 0), &jsonrpc.Options{Handler: mux})
	client := jsonrpc.NewConn(jsonrpc.NDJSON(b, b, 0), nil)
	defer server.Close()
	defer client.Close()

	var diff int
	if err := client.Call(context.Background(), "subtract", []int{42, 23}, &diff); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(diff)
	err := client.Call(context.Background(), "divide", []int{1, 0}, nil)
	fmt.Println(err)
	// Output:
	// 19
	// jsonrpc: error -32601: Method not found
}

func ExampleProgress() {
	mux := jsonrpc.NewMux()
	mux.AddFunc("work", func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
		for step := 1; step <= 2; step++ {
			if err := jsonrpc.Progress(ctx, step); err != nil {
				return nil, err
			}
		}
		return "done", nil
	})
	steps := make(chan string, 2)
	clientMux := jsonrpc.NewMux()
	clientMux.AddFunc("$/progress", func(_ context.Context, req *jsonrpc.Request) (any, error) {
		steps <- string(req.Params)
		return nil, nil
	})
	a, b := net.Pipe()
	server := jsonrpc.NewConn(jsonrpc.NDJSON(a, a, 0), &jsonrpc.Options{Handler: mux})
	client := jsonrpc.NewConn(jsonrpc.NDJSON(b, b, 0), &jsonrpc.Options{Handler: clientMux, MaxConcurrent: 1})
	defer server.Close()
	defer client.Close()

	var result string
	params := map[string]any{"_meta": map[string]any{"progressToken": "job-1"}}
	if err := client.Call(context.Background(), "work", params, &result); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(<-steps)
	fmt.Println(<-steps)
	fmt.Println(result)
	// Output:
	// {"token":"job-1","value":1}
	// {"token":"job-1","value":2}
	// done
}
