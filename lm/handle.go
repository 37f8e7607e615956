package lm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"
)

// decodeRequest parses one request frame. ErrInvalidJSON and ErrNotObject
// (wrapped) mean the peer is not speaking the protocol, so the server
// answers and closes. ErrInvalidRequest is a well-formed object with a field
// of the wrong type ("request: depth: want an integer, got string"): it is
// answered like any other bad request and the connection stays open.
func decodeRequest(payload []byte) (*Request, error) {
	trimmed := bytes.TrimSpace(payload)
	if !json.Valid(trimmed) {
		// Decode again only to get the parser's reason; invalid frames are rare.
		var v any
		err := json.Unmarshal(trimmed, &v)
		return nil, fmt.Errorf("%w: %v", ErrInvalidJSON, err)
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, ErrNotObject
	}
	var req Request
	if err := json.Unmarshal(trimmed, &req); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, &fieldError{field: te.Field, want: wantKind(te.Type), got: te.Value}
		}
		return nil, fmt.Errorf("%w: %v", ErrInvalidRequest, err)
	}
	return &req, nil
}

// fieldError is a request field of the wrong JSON type; it is ErrInvalidRequest.
type fieldError struct{ field, want, got string }

func (e *fieldError) Error() string {
	return fmt.Sprintf("request: %s: want %s, got %s", e.field, e.want, e.got)
}

func (e *fieldError) Is(target error) bool { return target == ErrInvalidRequest }

// wantKind names the JSON value a Request field of type t takes.
func wantKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "an array"
	default:
		return t.String()
	}
}

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
// and the backend, and records its usage.
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
	meter.Add(name, u)
	return Completion{
		RootModel:     name,
		Prompt:        prompt,
		Response:      reply.Text,
		UsageSummary:  singleUsage(name, u),
		ExecutionTime: elapsed.Seconds(),
	}, nil
}
