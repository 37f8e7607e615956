// Reverse the words, nothing but the function.
package main

import (
	"slices"
	"strings"
)

func solve(s string) string {
	words := strings.Fields(s)
	slices.Reverse(words)
	return strings.Join(words, " ")
}
