package lm

import (
	"errors"
	"fmt"
)

// rlm's fixed error texts; rlm clients may match on them.
const (
	textNotObject     = "Request must be a JSON object"
	textMissingPrompt = "Missing 'prompt' or 'prompts' in request."
	batchSlotPrefix   = "llm() call failed - "
)

var (
	// ErrNotObject: the request frame is JSON but not an object.
	ErrNotObject = errors.New(textNotObject)
	// ErrMissingPrompt: the request has neither a usable prompt nor prompts.
	ErrMissingPrompt = errors.New(textMissingPrompt) //lint:ignore ST1005 rlm's own words, which its clients match
	// ErrInvalidPrompt: a prompt is neither a string nor chat messages.
	ErrInvalidPrompt = errors.New("invalid prompt")
	// ErrInvalidJSON: the request frame is not JSON.
	ErrInvalidJSON = errors.New("request is not valid JSON")
	// ErrInvalidRequest: the request is a JSON object, but a field has the
	// wrong type ("request: depth: want an integer, got string").
	ErrInvalidRequest = errors.New("invalid request")
	// ErrUnknownModel: no backend or rule serves the requested model and no
	// fallback is configured.
	ErrUnknownModel = errors.New("unknown model")
	// ErrBudgetExhausted: the handler's call or token budget is spent.
	ErrBudgetExhausted = errors.New("lm budget exhausted")
	// ErrServerClosed is returned by Serve after Close.
	ErrServerClosed = errors.New("lm: server closed")
	// ErrRemote: the handler answered with an error response.
	ErrRemote = errors.New("lm handler error")
)

// RemoteError is an error response from a handler, as the Go client sees it.
type RemoteError struct{ Message string }

func (e *RemoteError) Error() string { return e.Message }

// Is makes errors.Is(err, ErrRemote) true.
func (e *RemoteError) Is(target error) bool { return target == ErrRemote }

// SlotError is a failed prompt of a batch, as the Go client sees it.
type SlotError struct {
	Index   int
	Message string // rlm's "llm() call failed - <reason>"
}

func (e *SlotError) Error() string { return fmt.Sprintf("lm: prompt %d: %s", e.Index, e.Message) }
