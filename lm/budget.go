package lm

import (
	"fmt"
	"sync"
)

// Budget limits what a handler may spend; a zero field is unlimited.
type Budget struct {
	Calls  int64 `json:"calls,omitempty"`
	Tokens int64 `json:"tokens,omitempty"` // input + output tokens
}

// spend tracks a Budget. A call is reserved before it reaches a backend, so
// concurrent calls never exceed Calls; tokens are known only afterwards, so
// the call that crosses Tokens completes and later ones are refused.
type spend struct {
	limit Budget
	mu    sync.Mutex
	calls int64 // guarded by mu: calls reserved, including those in flight
	tok   int64 // guarded by mu
}

func (s *spend) reserve() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.limit.Calls > 0 && s.calls >= s.limit.Calls {
		return fmt.Errorf("%w: %d of %d calls used", ErrBudgetExhausted, s.calls, s.limit.Calls)
	}
	if s.limit.Tokens > 0 && s.tok >= s.limit.Tokens {
		return fmt.Errorf("%w: %d of %d tokens used", ErrBudgetExhausted, s.tok, s.limit.Tokens)
	}
	s.calls++
	return nil
}

// settle records a reserved call's tokens; a failed call gives its slot back.
func (s *spend) settle(ok bool, tokens int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok {
		s.calls--
		return
	}
	s.tok += tokens
}
