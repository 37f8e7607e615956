package backend_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/lm/backend"
)

const okBody = `{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hello there"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":2,"total_tokens":14}}`

// chatServer answers POST /v1/chat/completions with the replies in turn
// (the last one repeats) and counts requests.
type reply struct {
	status int
	body   string
	header map[string]string
	hang   bool // wait until the client gives up
}

func chatServer(t *testing.T, replies ...reply) (*httptest.Server, *atomic.Int64, chan []byte) {
	t.Helper()
	var n atomic.Int64
	bodies := make(chan []byte, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "wrong endpoint "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body["_auth"] = r.Header.Get("Authorization")
		b, _ := json.Marshal(body)
		select {
		case bodies <- b:
		default:
		}
		i := int(n.Add(1)) - 1
		rep := replies[min(i, len(replies)-1)]
		if rep.hang {
			<-r.Context().Done()
			return
		}
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(rep.status)
		w.Write([]byte(rep.body))
	}))
	t.Cleanup(srv.Close)
	return srv, &n, bodies
}

func call(text string) lm.Call {
	msgs, err := lm.ParsePrompt(json.RawMessage(`"` + text + `"`))
	if err != nil {
		panic(err)
	}
	return lm.Call{Messages: msgs}
}

func TestOpenAISuccess(t *testing.T) {
	srv, n, bodies := chatServer(t, reply{status: 200, body: okBody})
	o := &backend.OpenAI{BaseURL: srv.URL + "/v1/", APIKey: "sk-test", Model: "gpt-test",
		Args: map[string]any{"temperature": 0.5}, Price: &backend.Price{InputPerMTok: 1e6, OutputPerMTok: 2e6}, Client: srv.Client()}
	r, err := o.Complete(context.Background(), call("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "hello there" || r.InputTokens != 12 || r.OutputTokens != 2 || r.Cost == nil || *r.Cost != 16 {
		t.Errorf("reply = %+v", r)
	}
	var sent struct {
		Model       string
		Messages    []map[string]string
		Temperature float64
		Auth        string `json:"_auth"`
	}
	json.Unmarshal(<-bodies, &sent)
	if sent.Model != "gpt-test" || sent.Temperature != 0.5 || sent.Auth != "Bearer sk-test" ||
		len(sent.Messages) != 1 || sent.Messages[0]["role"] != "user" || sent.Messages[0]["content"] != "hi" {
		t.Errorf("request = %+v", sent)
	}
	if n.Load() != 1 {
		t.Errorf("%d requests, want 1", n.Load())
	}
}

func TestOpenAIFailures(t *testing.T) {
	cases := []struct {
		name      string
		replies   []reply
		retries   int
		wantCalls int64
		check     func(t *testing.T, r lm.Reply, err error)
	}{
		{"429 then success", []reply{{status: 429, body: `{"error":{"message":"slow down"}}`, header: map[string]string{"Retry-After": "0"}}, {status: 200, body: okBody}}, 2, 2,
			func(t *testing.T, r lm.Reply, err error) {
				if err != nil || r.Text != "hello there" {
					t.Errorf("got %+v, %v", r, err)
				}
			}},
		{"500 without retries", []reply{{status: 500, body: `{"error":{"message":"upstream broke"}}`}}, 0, 1,
			func(t *testing.T, _ lm.Reply, err error) {
				var he *backend.HTTPError
				if !errors.As(err, &he) || he.Status != 500 || he.Message != "upstream broke" {
					t.Errorf("err = %v", err)
				}
			}},
		{"500 every time", []reply{{status: 503, body: "busy"}}, 2, 3,
			func(t *testing.T, _ lm.Reply, err error) {
				var he *backend.HTTPError
				if !errors.As(err, &he) || he.Status != 503 || he.Message != "busy" {
					t.Errorf("err = %v", err)
				}
			}},
		{"400 is not retried", []reply{{status: 400, body: `{"error":{"message":"bad model"}}`}}, 3, 1,
			func(t *testing.T, _ lm.Reply, err error) {
				var he *backend.HTTPError
				if !errors.As(err, &he) || he.Status != 400 {
					t.Errorf("err = %v", err)
				}
			}},
		{"malformed body", []reply{{status: 200, body: `{"choices": "nope"`}}, 3, 1,
			func(t *testing.T, _ lm.Reply, err error) {
				if !errors.Is(err, backend.ErrMalformedReply) {
					t.Errorf("err = %v", err)
				}
			}},
		{"no choices", []reply{{status: 200, body: `{"choices": []}`}}, 0, 1,
			func(t *testing.T, _ lm.Reply, err error) {
				if !errors.Is(err, backend.ErrMalformedReply) {
					t.Errorf("err = %v", err)
				}
			}},
		{"timeout", []reply{{hang: true}}, 1, 2,
			func(t *testing.T, _ lm.Reply, err error) {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("err = %v", err)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, n, _ := chatServer(t, tc.replies...)
			o := &backend.OpenAI{BaseURL: srv.URL + "/v1", Model: "m", Retries: tc.retries,
				Backoff: time.Millisecond, Timeout: 100 * time.Millisecond, Client: srv.Client()}
			r, err := o.Complete(context.Background(), call("x"))
			tc.check(t, r, err)
			if got := n.Load(); got != tc.wantCalls {
				t.Errorf("%d requests, want %d", got, tc.wantCalls)
			}
		})
	}
}

func TestOpenAICallerCancelStopsRetries(t *testing.T) {
	srv, n, _ := chatServer(t, reply{status: 429, body: "{}", header: map[string]string{"Retry-After": "60"}})
	o := &backend.OpenAI{BaseURL: srv.URL + "/v1", Model: "m", Retries: 5, Client: srv.Client()}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := o.Complete(ctx, call("x")); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v", err)
	}
	if n.Load() != 1 {
		t.Errorf("%d requests, want 1", n.Load())
	}
}

func TestEcho(t *testing.T) {
	e := &backend.Echo{FailEvery: 2, FailOn: "bad"}
	ctx := context.Background()
	if r, err := e.Complete(ctx, call("one two")); err != nil || r.Text != "one two" || r.InputTokens != 2 {
		t.Errorf("first call = %+v, %v", r, err)
	}
	if _, err := e.Complete(ctx, call("fine")); !errors.Is(err, backend.ErrInjected) {
		t.Errorf("second call = %v, want injected failure", err)
	}
	if _, err := e.Complete(ctx, call("bad one")); !errors.Is(err, backend.ErrInjected) {
		t.Errorf("FailOn call = %v, want injected failure", err)
	}
	slow := &backend.Echo{Delay: time.Hour}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := slow.Complete(cctx, call("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call = %v", err)
	}
}

// With StatusOnly, nothing the server sent reaches the error: not an error
// body, not a malformed reply, not a banner that is not HTTP (issue 27,
// item 6: the evaluator read the first 200 bytes of an error body).
func TestOpenAIStatusOnly(t *testing.T) {
	for name, rep := range map[string]reply{
		"error body":      {status: 500, body: `{"error":{"message":"secret words"}}`},
		"plain body":      {status: 403, body: "secret words"},
		"malformed reply": {status: 200, body: "Zsecret words"},
	} {
		srv, _, _ := chatServer(t, rep)
		o := &backend.OpenAI{BaseURL: srv.URL + "/v1", Model: "m", Client: srv.Client(), StatusOnly: true}
		_, err := o.Complete(context.Background(), call("hi"))
		if err == nil || strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "'Z'") {
			t.Errorf("%s: %v, want an error without the server's words", name, err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Write([]byte("SSH-2.0-secret-banner\r\n"))
		c.Close()
	}()
	o := &backend.OpenAI{BaseURL: "http://" + ln.Addr().String() + "/v1", Model: "m", StatusOnly: true}
	_, err = o.Complete(context.Background(), call("hi"))
	<-done
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("a server that is not HTTP: %v, want an error without its banner", err)
	}
}
