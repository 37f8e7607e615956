// The solution asks a language model through the evaluator's
// request_llm_completion capability, nothing but the functions.
package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/tether-dev/tether/sdk/go/solution"
)

func complete(prompt string) (string, error) {
	answer, err := solution.CallCapability(context.Background(), "request_llm_completion", prompt)
	if err != nil {
		return "", err
	}
	return fmt.Sprint(answer), nil
}

func ask_all(prompts []string) []string {
	var answers []string
	for _, p := range prompts {
		a, err := complete(p)
		if err != nil {
			panic(err)
		}
		answers = append(answers, a)
	}
	return answers
}

func ask_one_more(prompt string) string {
	a, err := complete(prompt)
	var failed *solution.CapabilityError
	if errors.As(err, &failed) {
		return failed.Message
	}
	if err != nil {
		panic(err)
	}
	return a
}
