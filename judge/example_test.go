package judge_test

import (
	"fmt"

	"github.com/tether-dev/tether/judge"
)

func ExampleDecide() {
	payload := &judge.Payload{Status: judge.WrongAnswer, Score: 2500}
	fmt.Println(judge.Decide(judge.Outcome{Payload: payload}).Status)
	fmt.Println(judge.Decide(judge.Outcome{Payload: payload, TimeLimitExceeded: true, CallInFlightAtTimeLimit: true}).Status)
	fmt.Println(judge.Decide(judge.Outcome{Payload: payload, TimeLimitExceeded: true}).Status)
	fmt.Println(judge.Decide(judge.Outcome{CallTimeouts: 1}).Status)
	// Output:
	// WrongAnswer
	// TimeLimitExceeded
	// SystemError
	// TimeLimitExceeded
}
