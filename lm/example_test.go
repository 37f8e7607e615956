package lm_test

import (
	"context"
	"fmt"

	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/lm/backend"
)

func Example() {
	ln, _ := lm.Listen(context.Background(), "127.0.0.1:0")
	srv := lm.NewServer(lm.SingleBackend("echo", &backend.Echo{FailOn: "boom"}), nil)
	go srv.Serve(ln)
	defer srv.Close()

	cl, _ := lm.NewClient(lm.FormatAddr(ln.Addr()), &lm.ClientOptions{KeepAlive: true})
	defer cl.Close()
	c, _ := cl.Query(context.Background(), "hello", "")
	fmt.Println(c.RootModel, c.Response)

	comps, err := cl.QueryBatch(context.Background(), []string{"a", "boom", "c"}, "")
	fmt.Println(comps[0].Response, comps[2].Response)
	fmt.Println(err)
	// Output:
	// echo hello
	// a c
	// lm: prompt 1: llm() call failed - echo: injected failure: prompt contains "boom"
}
