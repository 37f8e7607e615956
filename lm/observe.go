package lm

import (
	"context"
	"encoding/json"
	"time"
)

// CompletionRecord is one prompt a handler answered or failed, for
// Options.Observe.
type CompletionRecord struct {
	Model           string // the model the request asked for ("" for the default)
	Backend         string // the backend it was routed to
	Depth           int
	PromptBytes     int // the prompt as sent (its JSON)
	CompletionBytes int // the completion's text
	InputTokens     int64
	OutputTokens    int64
	Latency         time.Duration // from the request's routing to its answer, budget waits included
	Err             error
	Budget          BudgetState // after this prompt settled
}

// observed is completeOne, reported to Options.Observe when it is set.
func (s *Server) observed(ctx context.Context, name string, backend Backend, req *Request, prompt json.RawMessage, meter *Meter) (Completion, error) {
	if s.opts.Observe == nil {
		return s.completeOne(ctx, name, backend, req.Model, prompt, meter)
	}
	start := time.Now()
	c, err := s.completeOne(ctx, name, backend, req.Model, prompt, meter)
	rec := CompletionRecord{Model: req.Model, Backend: name, Depth: req.Depth, PromptBytes: len(prompt),
		CompletionBytes: len(c.Response), Latency: time.Since(start), Err: err, Budget: s.spend.state()}
	if err == nil {
		for _, u := range c.UsageSummary.ModelUsageSummaries {
			rec.InputTokens += u.TotalInputTokens
			rec.OutputTokens += u.TotalOutputTokens
		}
	}
	s.opts.Observe(rec)
	return c, err
}
