package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/lm"
)

// ErrMalformedReply: the server answered 200 with a body that is not a chat completion.
var ErrMalformedReply = errors.New("malformed chat-completions reply")

// HTTPError is a non-2xx answer of a chat-completions server.
type HTTPError struct {
	Status  int
	Message string // the API's error.message, or the start of the body
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("chat-completions: HTTP %d: %s", e.Status, e.Message)
}

// Retryable reports whether the status is worth another attempt (429, 5xx).
func (e *HTTPError) Retryable() bool {
	return e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// Price is what a model costs in USD per million tokens.
type Price struct {
	InputPerMTok  float64 `json:"input_per_mtok"`
	OutputPerMTok float64 `json:"output_per_mtok"`
}

// OpenAI calls an OpenAI-compatible POST {BaseURL}/chat/completions (OpenAI,
// vLLM, llama.cpp's server, Ollama, OpenRouter...). Its fields must not be
// changed once it is in use; it is then safe for concurrent use.
type OpenAI struct {
	BaseURL string         // e.g. "https://api.openai.com/v1"
	APIKey  string         // sent as a bearer token when not empty
	Model   string         // model sent upstream; "" sends the model the client asked for
	Args    map[string]any // sampling arguments merged into the body (temperature, max_tokens, ...)
	Price   *Price         // cost accounting; nil leaves cost unknown unless the server reports usage.cost
	Timeout time.Duration  // per attempt; default 120 s
	Retries int            // further attempts after a 429, a 5xx, a timeout or a network error; default 0
	Backoff time.Duration  // wait before the first retry, doubled each time (a Retry-After header wins); default 500 ms
	// MaxBackoff caps every wait; default 30 s.
	MaxBackoff time.Duration
	Client     *http.Client // default http.DefaultClient
	// StatusOnly keeps the server's words out of errors: a failed request
	// reports its HTTP status line, a malformed reply only that it is one.
	// Set for a backend a problem declares, whose errors reach the
	// evaluator: its server may be one whose answers it must not read.
	StatusOnly bool
}

type chatReply struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int64    `json:"prompt_tokens"`
		CompletionTokens int64    `json:"completion_tokens"`
		Cost             *float64 `json:"cost"`
	} `json:"usage"`
}

// Complete implements lm.Backend.
func (o *OpenAI) Complete(ctx context.Context, call lm.Call) (lm.Reply, error) {
	body, err := o.requestBody(call)
	if err != nil {
		return lm.Reply{}, err
	}
	backoff := o.Backoff
	if backoff <= 0 {
		backoff = 500 * time.Millisecond
	}
	maxBackoff := o.MaxBackoff
	if maxBackoff <= 0 {
		maxBackoff = 30 * time.Second
	}
	for attempt := 0; ; attempt++ {
		reply, wait, err := o.attempt(ctx, body)
		if err == nil || attempt >= o.Retries || !retryable(ctx, err) {
			if err != nil && attempt > 0 {
				err = fmt.Errorf("%w (after %d attempts)", err, attempt+1)
			}
			return reply, err
		}
		wait = min(max(wait, backoff), maxBackoff)
		backoff *= 2
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return lm.Reply{}, fmt.Errorf("chat-completions: giving up while waiting to retry: %w (last error: %v)", ctx.Err(), err)
		}
	}
}

func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false // the caller's context, not one attempt's, is done
	}
	var he *HTTPError
	if errors.As(err, &he) {
		return he.Retryable()
	}
	return !errors.Is(err, ErrMalformedReply) // timeouts and network errors
}

func (o *OpenAI) requestBody(call lm.Call) ([]byte, error) {
	body := make(map[string]any, len(o.Args)+2)
	for k, v := range o.Args {
		body[k] = v
	}
	model := o.Model
	if model == "" {
		model = call.Model
	}
	if model == "" {
		return nil, errors.New("chat-completions: no model configured or requested")
	}
	msgs := make([]json.RawMessage, len(call.Messages))
	for i, m := range call.Messages {
		msgs[i] = m.Raw
	}
	body["model"] = model
	body["messages"] = msgs
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("chat-completions: encoding request: %w", err)
	}
	return b, nil
}

// MaxTokens implements lm.TokenBounder when Args caps the answer
// (max_tokens or max_completion_tokens): a token is at least one byte of
// the messages' JSON, plus a few for each message's chat template.
func (o *OpenAI) MaxTokens(call lm.Call) (int64, bool) {
	var out int64
	for _, key := range []string{"max_tokens", "max_completion_tokens"} {
		switch v := o.Args[key].(type) {
		case float64:
			out = max(out, int64(v))
		case int:
			out = max(out, int64(v))
		case int64:
			out = max(out, v)
		}
	}
	if out <= 0 {
		return 0, false
	}
	const perMessage = 16
	in := int64(0)
	for _, m := range call.Messages {
		in += int64(len(m.Raw)+len(m.Content)) + perMessage
	}
	return in + out, true
}

// attempt makes one HTTP request; wait is the server's Retry-After, if any.
func (o *OpenAI) attempt(ctx context.Context, body []byte) (lm.Reply, time.Duration, error) {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 120 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	url := strings.TrimSuffix(o.BaseURL, "/") + "/chat/completions"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return lm.Reply{}, 0, fmt.Errorf("chat-completions: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.APIKey)
	}
	client := o.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if o.StatusOnly {
			err = withoutServerWords(err, url)
		}
		return lm.Reply{}, 0, fmt.Errorf("chat-completions: %w", err)
	}
	defer resp.Body.Close()
	const maxBody = 32 << 20
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return lm.Reply{}, 0, fmt.Errorf("chat-completions: reading reply: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		msg := http.StatusText(resp.StatusCode)
		if !o.StatusOnly {
			msg = apiMessage(data)
		}
		return lm.Reply{}, retryAfter(resp.Header.Get("Retry-After")), &HTTPError{Status: resp.StatusCode, Message: msg}
	}
	return o.parse(data)
}

func (o *OpenAI) parse(data []byte) (lm.Reply, time.Duration, error) {
	var r chatReply
	if err := json.Unmarshal(data, &r); err != nil {
		if o.StatusOnly {
			return lm.Reply{}, 0, fmt.Errorf("chat-completions: %w: not a chat completion object", ErrMalformedReply)
		}
		return lm.Reply{}, 0, fmt.Errorf("chat-completions: %w: %v", ErrMalformedReply, err)
	}
	if len(r.Choices) == 0 {
		return lm.Reply{}, 0, fmt.Errorf("chat-completions: %w: no choices", ErrMalformedReply)
	}
	var reply lm.Reply
	if c := r.Choices[0].Message.Content; c != nil {
		reply.Text = *c
	}
	if r.Usage != nil {
		reply.InputTokens, reply.OutputTokens = r.Usage.PromptTokens, r.Usage.CompletionTokens
		reply.Cost = r.Usage.Cost
	}
	if reply.Cost == nil && o.Price != nil {
		c := (float64(reply.InputTokens)*o.Price.InputPerMTok + float64(reply.OutputTokens)*o.Price.OutputPerMTok) / 1e6
		reply.Cost = &c
	}
	return reply, 0, nil
}

// apiMessage extracts {"error":{"message":...}} or returns the body's start.
func apiMessage(data []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	s := strings.TrimSpace(string(data))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	if s == "" {
		s = "(empty body)"
	}
	return s
}

// withoutServerWords keeps a failed request's error when it holds no
// bytes the server sent (a refused address, a network error, a timeout);
// any other (a malformed HTTP answer quotes it) says only that.
func withoutServerWords(err error, url string) error {
	var op *net.OpError
	if errors.Is(err, ErrAddressRefused) || errors.As(err, &op) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("POST %s: the server's answer is not valid HTTP", url)
}

func retryAfter(h string) time.Duration {
	if secs, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && secs > 0 {
		return time.Duration(secs) * time.Second
	}
	return 0
}
