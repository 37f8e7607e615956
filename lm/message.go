package lm

import (
	"bytes"
	"encoding/json"
)

// Request is rlm's LMRequest: one prompt or a batch of prompts, an optional
// model name and the caller's recursion depth.
//
// Prompts are kept as the caller's original JSON bytes so that a completion
// echoes them unchanged; ParsePrompt turns one into chat messages.
type Request struct {
	Prompt  json.RawMessage   `json:"prompt,omitempty"`
	Prompts []json.RawMessage `json:"prompts,omitempty"`
	Model   string            `json:"model,omitempty"`
	// Depth is always written; a request without it reads as -1, as in rlm.
	Depth int `json:"depth" openrpc:"optional"`
}

// UnmarshalJSON decodes rlm's request shape: a missing depth is -1 and a
// null prompt or prompts is absent.
func (r *Request) UnmarshalJSON(data []byte) error {
	type plain Request
	p := plain{Depth: -1}
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	if isNull(p.Prompt) {
		p.Prompt = nil
	}
	*r = Request(p)
	return nil
}

// Batched reports whether the request carries a non-empty prompts list;
// only then is it answered with one completion per prompt (rlm's rule).
func (r *Request) Batched() bool { return len(r.Prompts) > 0 }

// Response is rlm's LMResponse. Exactly one of Error, ChatCompletion and
// ChatCompletions is set; all three keys are always written, the others as null.
type Response struct {
	ChatCompletion  *Completion  `json:"chat_completion"`
	ChatCompletions []Completion `json:"chat_completions"`
	Error           *string      `json:"error"`
}

// ErrorResponse is the response that carries only msg.
func ErrorResponse(msg string) *Response { return &Response{Error: &msg} }

// Completion is rlm's RLMChatCompletion: the answer to one prompt.
type Completion struct {
	RootModel     string          `json:"root_model"`
	Prompt        json.RawMessage `json:"prompt"`
	Response      string          `json:"response"`
	UsageSummary  UsageSummary    `json:"usage_summary"`
	ExecutionTime float64         `json:"execution_time"` // seconds
	Metadata      json.RawMessage `json:"metadata,omitempty"`
	// Error is set only on a failed slot of a batch; Response is then "".
	Error string `json:"error,omitempty"`
}

func isNull(raw json.RawMessage) bool {
	return raw == nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}
