// A + B in Go, nothing but the function: a bigint is a *big.Int, of any
// size.
package main

import "math/big"

func add(a, b *big.Int) *big.Int {
	return new(big.Int).Add(a, b)
}
