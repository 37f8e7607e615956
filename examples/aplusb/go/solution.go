// A + B in Go: an integer argument is an int64, or a *big.Int when it
// does not fit in 64 bits; the sum is a *big.Int, which the SDK sends as
// a plain integer of any size.
package main

import (
	"context"
	"fmt"
	"math/big"

	"github.com/tether-dev/tether/sdk/go/solution"
)

func bigOf(v any) (*big.Int, error) {
	switch x := v.(type) {
	case int64:
		return big.NewInt(x), nil
	case *big.Int:
		return x, nil
	}
	return nil, fmt.Errorf("%v is not an integer", v)
}

func main() {
	solution.Register("add", func(ctx context.Context, args []any) (any, error) {
		a, err := bigOf(args[0])
		if err != nil {
			return nil, err
		}
		b, err := bigOf(args[1])
		if err != nil {
			return nil, err
		}
		return new(big.Int).Add(a, b), nil
	})
	solution.Serve()
}
