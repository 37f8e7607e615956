package lm

import (
	"context"
	"fmt"
	"sync"
)

// Budget limits what a handler may spend; a zero field is unlimited.
type Budget struct {
	Calls  int64 `json:"calls,omitempty"`
	Tokens int64 `json:"tokens,omitempty"` // input + output tokens
}

// TokenBounder is a Backend that can bound a call's tokens (input and
// output) before making it. With a token budget, a call reserves that bound
// while it runs, so calls whose bounds fit the budget together run at once;
// the call of a backend that cannot bound it reserves the rest of the
// budget, so such calls run one at a time.
type TokenBounder interface {
	MaxTokens(call Call) (tokens int64, ok bool)
}

// spend tracks a Budget. A call reserves before it reaches a backend: one
// slot of Calls, and with a token budget its worst case of tokens, which it
// gives back when it settles with what it really used. A call starts only
// while what is spent and reserved plus its own worst case fits the
// budget, or, when it does not fit, once nothing else is in flight; so the
// budget is overshot by one call at most, whatever the concurrency.
type spend struct {
	limit Budget

	mu       sync.Mutex
	calls    int64         // calls reserved, including those in flight
	tok      int64         // tokens used by settled calls
	held     int64         // tokens reserved by calls in flight
	inFlight int           // calls holding a token reservation
	settled  chan struct{} // closed (and replaced) when a call settles; nil until waited on
}

// BudgetState is what a handler has spent of its Budget; a zero limit is
// unlimited.
type BudgetState struct {
	Calls       int64 `json:"calls"`
	CallsLimit  int64 `json:"calls_limit,omitempty"`
	Tokens      int64 `json:"tokens"`
	TokensLimit int64 `json:"tokens_limit,omitempty"`
}

func (s *spend) state() BudgetState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return BudgetState{Calls: s.calls, CallsLimit: s.limit.Calls, Tokens: s.tok, TokensLimit: s.limit.Tokens}
}

// reservation is what one call holds until it settles.
type reservation struct{ tokens int64 }

// reserve waits until the call may start within the budget, or returns
// ErrBudgetExhausted once it cannot, or ctx's error. worst is the call's
// bound of tokens, negative when unknown.
func (s *spend) reserve(ctx context.Context, worst int64) (reservation, error) {
	for {
		s.mu.Lock()
		if s.limit.Calls > 0 && s.calls >= s.limit.Calls {
			s.mu.Unlock()
			return reservation{}, fmt.Errorf("%w: %d of %d calls used", ErrBudgetExhausted, s.calls, s.limit.Calls)
		}
		if s.limit.Tokens > 0 && s.tok >= s.limit.Tokens {
			s.mu.Unlock()
			return reservation{}, fmt.Errorf("%w: %d of %d tokens used", ErrBudgetExhausted, s.tok, s.limit.Tokens)
		}
		if s.limit.Tokens <= 0 {
			s.calls++
			s.mu.Unlock()
			return reservation{}, nil
		}
		if worst < 0 {
			worst = s.limit.Tokens - s.tok
		}
		if s.tok+s.held+worst <= s.limit.Tokens || s.inFlight == 0 {
			s.calls++
			s.held += worst
			s.inFlight++
			s.mu.Unlock()
			return reservation{tokens: worst}, nil
		}
		if s.settled == nil {
			s.settled = make(chan struct{})
		}
		wait := s.settled
		s.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return reservation{}, ctx.Err()
		}
	}
}

// settle records a reserved call's tokens and frees its reservation; a
// failed call gives its slot back.
func (s *spend) settle(r reservation, ok bool, tokens int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.limit.Tokens > 0 {
		s.held -= r.tokens
		s.inFlight--
		if s.settled != nil {
			close(s.settled)
			s.settled = nil
		}
	}
	if !ok {
		s.calls--
		return
	}
	s.tok += tokens
}
