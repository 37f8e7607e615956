package lm

import "context"

// Backend answers one prompt. Implementations must be safe for concurrent
// use: the server calls Complete from many goroutines at once, up to its
// in-flight limit. Complete must return promptly once ctx is done.
type Backend interface {
	Complete(ctx context.Context, call Call) (Reply, error)
}

// Call is one prompt for a backend. Messages and their Raw bytes belong to
// the server and must not be changed or kept after Complete returns.
type Call struct {
	// Model is the model name the client asked for ("" when it asked for none).
	Model    string
	Messages []Message
}

// Reply is a backend's answer to one Call.
type Reply struct {
	Text         string
	InputTokens  int64
	OutputTokens int64
	Cost         *float64 // USD; nil when the backend does not price calls
}

func (r Reply) usage() ModelUsage {
	return ModelUsage{TotalCalls: 1, TotalInputTokens: r.InputTokens, TotalOutputTokens: r.OutputTokens, TotalCost: r.Cost}
}
