// The solution calls the evaluator's capabilities, nothing but the
// functions: lookup for each word, and slow_oracle, whose failure's code it
// returns.
package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tether-dev/tether/sdk/go/solution"
)

func translate(sentence string) string {
	var words []string
	for _, w := range strings.Fields(sentence) {
		t, err := solution.CallCapability(context.Background(), "lookup", w)
		if err != nil {
			panic(err)
		}
		if s, ok := t.(string); ok {
			words = append(words, s)
		} else {
			words = append(words, "?") // null: a word the dictionary lacks
		}
	}
	return strings.Join(words, " ")
}

func ask_oracle() string {
	answer, err := solution.CallCapability(context.Background(), "slow_oracle")
	var failed *solution.CapabilityError
	if errors.As(err, &failed) {
		return failed.Code
	}
	if err != nil {
		panic(err)
	}
	return fmt.Sprint(answer)
}
