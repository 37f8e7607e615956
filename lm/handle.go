package lm

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// answer serves one decoded request; per-prompt failures of a batch are in
// the completions, every other failure is an error response.
func (s *Server) answer(ctx context.Context, req *Request, meter *Meter) *Response {
	if !req.Batched() && isNull(req.Prompt) {
		return ErrorResponse(textMissingPrompt)
	}
	name, backend, err := s.router.Route(req.Model, req.Depth)
	if err != nil {
		return ErrorResponse(err.Error())
	}
	if !req.Batched() {
		c, err := s.observed(ctx, name, backend, req, req.Prompt, meter)
		if err != nil {
			return ErrorResponse(err.Error())
		}
		return &Response{ChatCompletion: &c}
	}
	out := make([]Completion, len(req.Prompts))
	s.runBatch(ctx, len(req.Prompts), func(i int) {
		c, err := s.observed(ctx, name, backend, req, req.Prompts[i], meter)
		if err != nil {
			c = Completion{
				RootModel: name,
				Prompt:    req.Prompts[i],
				Error:     batchSlotPrefix + err.Error(),
			}
		}
		out[i] = c
	})
	return &Response{ChatCompletions: out}
}

// runBatch calls slot(i) for every i in [0, n), at most BatchConcurrency at
// once, and returns when all have returned.
func (s *Server) runBatch(ctx context.Context, n int, slot func(i int)) {
	workers := min(s.opts.BatchConcurrency, n)
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				next.Lock()
				k := i
				i++
				next.Unlock()
				if k >= n {
					return
				}
				slot(k)
			}
		})
	}
	wg.Wait()
}

// completeOne runs one prompt through the budget, the handler-wide limit
// and the backend, and records its usage (in meter too, unless nil).
func (s *Server) completeOne(ctx context.Context, name string, backend Backend, model string, prompt json.RawMessage, meter *Meter) (Completion, error) {
	msgs, err := ParsePrompt(prompt)
	if err != nil {
		return Completion{}, err
	}
	call := Call{Model: model, Messages: msgs}
	worst := int64(-1)
	if b, ok := backend.(TokenBounder); ok {
		if n, ok := b.MaxTokens(call); ok {
			worst = n
		}
	}
	held, err := s.spend.reserve(ctx, worst)
	if err != nil {
		return Completion{}, err
	}
	select {
	case s.inFlight <- struct{}{}:
	case <-ctx.Done():
		s.spend.settle(held, false, 0)
		return Completion{}, ctx.Err()
	}
	start := time.Now()
	reply, err := backend.Complete(ctx, call)
	elapsed := time.Since(start)
	<-s.inFlight
	if err != nil {
		s.spend.settle(held, false, 0)
		return Completion{}, err
	}
	u := reply.usage()
	s.spend.settle(held, true, u.TotalInputTokens+u.TotalOutputTokens)
	s.meter.Add(name, u)
	if meter != nil {
		meter.Add(name, u)
	}
	return Completion{
		RootModel:     name,
		Prompt:        prompt,
		Response:      reply.Text,
		UsageSummary:  singleUsage(name, u),
		ExecutionTime: elapsed.Seconds(),
	}, nil
}
