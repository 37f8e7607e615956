package backend

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/tether-dev/tether/lm"
)

// ErrInjected is the failure an Echo backend was told to produce.
var ErrInjected = errors.New("injected failure")

// Echo answers each call with the text of its last user message, or with
// fixed replies when Replies is set. It counts whitespace-separated words as
// tokens, so usage is deterministic.
type Echo struct {
	Delay time.Duration // wait before answering (cut short by the context)
	// Replies, if not empty, are the answers in turn: the n-th call (from 1)
	// gets Replies[(n-1) % len(Replies)] instead of its prompt.
	Replies []string
	// FailOn fails every call whose last user message contains it ("" never).
	FailOn string
	// FailEvery fails every n-th call (counting from 1); 0 never.
	FailEvery int64

	calls atomic.Int64
}

// Complete implements lm.Backend.
func (e *Echo) Complete(ctx context.Context, call lm.Call) (lm.Reply, error) {
	n := e.calls.Add(1)
	if e.Delay > 0 {
		t := time.NewTimer(e.Delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return lm.Reply{}, ctx.Err()
		}
	}
	text := lastUser(call.Messages)
	if e.FailOn != "" && strings.Contains(text, e.FailOn) {
		return lm.Reply{}, fmt.Errorf("echo: %w: prompt contains %q", ErrInjected, e.FailOn)
	}
	if e.FailEvery > 0 && n%e.FailEvery == 0 {
		return lm.Reply{}, fmt.Errorf("echo: %w: call %d", ErrInjected, n)
	}
	if len(e.Replies) > 0 {
		text = e.Replies[(n-1)%int64(len(e.Replies))]
	}
	var in int64
	for _, m := range call.Messages {
		in += words(m.Content)
	}
	return lm.Reply{Text: text, InputTokens: in, OutputTokens: words(text)}, nil
}

// MaxTokens implements lm.TokenBounder: the input's words and the longest
// answer it can give.
func (e *Echo) MaxTokens(call lm.Call) (int64, bool) {
	var in int64
	for _, m := range call.Messages {
		in += words(m.Content)
	}
	out := words(lastUser(call.Messages))
	for _, r := range e.Replies {
		out = max(out, words(r))
	}
	return in + out, true
}

// words is len(strings.Fields(s)), counted without building the fields.
func words(s string) int64 {
	var n int64
	inWord := false
	for _, r := range s {
		space := unicode.IsSpace(r)
		if !space && !inWord {
			n++
		}
		inWord = !space
	}
	return n
}

func lastUser(msgs []lm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Content
		}
	}
	return ""
}
