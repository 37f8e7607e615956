// See solution.py: add, and add_* misbehaving one way each.
package main

import (
	"context"
	"fmt"
	"os"
	"syscall"

	"github.com/tether-dev/tether/sdk/go/solution"
)

// ints are a call's two integer arguments.
func ints(args []any) (int64, int64) { return args[0].(int64), args[1].(int64) }

func main() {
	solution.Register("add", func(ctx context.Context, args []any) (any, error) {
		a, b := ints(args)
		return a + b, nil
	})
	solution.Register("add_wrong", func(ctx context.Context, args []any) (any, error) {
		a, b := ints(args)
		return a - b, nil
	})
	solution.Register("add_crash", func(ctx context.Context, args []any) (any, error) {
		syscall.Kill(os.Getpid(), syscall.SIGABRT)
		select {}
	})
	solution.Register("add_throw", func(ctx context.Context, args []any) (any, error) {
		panic("no such case")
	})
	solution.Register("add_spin", func(ctx context.Context, args []any) (any, error) {
		for i := 0; ; i++ {
			sink = i
		}
	})
	solution.Register("add_hog", func(ctx context.Context, args []any) (any, error) {
		var keep [][]byte
		for range 64 {
			b := make([]byte, 16<<20)
			for i := range b {
				b[i] = 1
			}
			keep = append(keep, b)
		}
		return int64(len(keep)), nil
	})
	solution.Register("add_chatty", func(ctx context.Context, args []any) (any, error) {
		a, b := ints(args)
		fmt.Printf("chatty: %d + %d\n", a, b)
		return a + b, nil
	})
	solution.Serve()
}

var sink int
