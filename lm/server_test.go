package lm_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/lm/backend"
	"github.com/tether-dev/tether/wire"
)

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func wantNullKeys(t *testing.T, resp map[string]any, set string) {
	t.Helper()
	for _, k := range []string{"chat_completion", "chat_completions", "error"} {
		v, ok := resp[k]
		if !ok {
			t.Errorf("response lacks key %q: %v", k, keys(resp))
		}
		if k != set && v != nil {
			t.Errorf("response %q = %v, want null", k, v)
		}
		if k == set && v == nil {
			t.Errorf("response %q is null", k)
		}
	}
}

func TestSingleResponseShape(t *testing.T) {
	_, addr := echoServer(t, nil, nil)
	c := dialRaw(t, addr)
	// rlm's json.dumps escapes non-ASCII; the echoed prompt keeps the sender's bytes.
	c.send(`{"prompt": "caf\u00e9 au lait", "depth": 0}`)
	resp := c.recv()
	wantNullKeys(t, resp, "chat_completion")
	cc := resp["chat_completion"].(map[string]any)
	if cc["response"] != "café au lait" || cc["root_model"] != "echo" || cc["prompt"] != "café au lait" {
		t.Errorf("completion = %v", cc)
	}
	if _, ok := cc["error"]; ok {
		t.Errorf("successful completion carries an error key: %v", cc)
	}
	if _, ok := cc["metadata"]; ok {
		t.Errorf("completion carries metadata though none was set: %v", cc)
	}
	if _, ok := cc["execution_time"].(float64); !ok {
		t.Errorf("execution_time = %v, want a number", cc["execution_time"])
	}
	us := cc["usage_summary"].(map[string]any)
	mu := us["model_usage_summaries"].(map[string]any)["echo"].(map[string]any)
	if mu["total_calls"] != 1.0 || mu["total_input_tokens"] != 3.0 || mu["total_output_tokens"] != 3.0 {
		t.Errorf("usage = %v", mu)
	}
	if _, ok := us["total_cost"]; ok {
		t.Errorf("unpriced usage has total_cost: %v", us)
	}
}

func TestPromptBytesEchoedVerbatim(t *testing.T) {
	_, addr := echoServer(t, nil, nil)
	c := dialRaw(t, addr)
	prompt := `[{"role": "system", "content": "be brief"}, {"role": "user", "content": [{"type": "text", "text": "caf\u00e9"}]}]`
	c.send(`{"prompt": ` + prompt + `, "depth": 1}`)
	p, err := c.fr.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		ChatCompletion struct {
			Prompt   json.RawMessage
			Response string
		} `json:"chat_completion"`
	}
	if err := json.Unmarshal(p, &resp); err != nil {
		t.Fatal(err)
	}
	if string(resp.ChatCompletion.Prompt) != prompt {
		t.Errorf("prompt echoed as %s, want the sent bytes %s", resp.ChatCompletion.Prompt, prompt)
	}
	if resp.ChatCompletion.Response != "café" {
		t.Errorf("response %q, want the last user message", resp.ChatCompletion.Response)
	}
}

func TestBatchOrderAndFailedSlot(t *testing.T) {
	_, addr := echoServer(t, &backend.Echo{FailOn: "boom"}, nil)
	c := dialRaw(t, addr)
	c.send(`{"prompts": ["one", "two boom", "three"], "model": "echo", "depth": 0}`)
	resp := c.recv()
	wantNullKeys(t, resp, "chat_completions")
	ccs := resp["chat_completions"].([]any)
	if len(ccs) != 3 {
		t.Fatalf("%d completions, want 3", len(ccs))
	}
	for i, want := range []string{"one", "", "three"} {
		cc := ccs[i].(map[string]any)
		if cc["response"] != want {
			t.Errorf("slot %d response %q, want %q", i, cc["response"], want)
		}
	}
	bad := ccs[1].(map[string]any)
	if e, _ := bad["error"].(string); !strings.HasPrefix(e, "llm() call failed - ") || !strings.Contains(e, "injected failure") {
		t.Errorf("failed slot error = %q", bad["error"])
	}
	if bad["execution_time"] != 0.0 || bad["prompt"] != "two boom" {
		t.Errorf("failed slot = %v", bad)
	}
	if us := bad["usage_summary"].(map[string]any); len(us["model_usage_summaries"].(map[string]any)) != 0 {
		t.Errorf("failed slot usage = %v, want empty", us)
	}
	// Each successful slot carries its own usage, not the batch's.
	one := ccs[0].(map[string]any)["usage_summary"].(map[string]any)["model_usage_summaries"].(map[string]any)["echo"].(map[string]any)
	if one["total_calls"] != 1.0 {
		t.Errorf("slot usage = %v, want one call", one)
	}
}

func TestRequestErrorsKeepConnection(t *testing.T) {
	_, addr := echoServer(t, nil, nil)
	cases := []struct{ name, req, want string }{
		{"no prompt", `{"depth": 0}`, "Missing 'prompt' or 'prompts' in request."},
		{"null prompt", `{"prompt": null}`, "Missing 'prompt' or 'prompts' in request."},
		{"empty prompt", `{"prompt": ""}`, "Missing 'prompt' or 'prompts' in request."},
		{"empty prompts", `{"prompts": []}`, "Missing 'prompt' or 'prompts' in request."},
		{"number prompt", `{"prompt": 7}`, "invalid prompt: a prompt is a string or a list of messages, not a number"},
		{"string depth", `{"prompt": "x", "depth": "1"}`, "request: depth: want an integer, got string"},
		{"string prompts", `{"prompts": "x", "depth": 0}`, "request: prompts: want an array, got string"},
		{"number model", `{"prompt": "x", "model": 5, "depth": 0}`, "request: model: want a string, got number"},
		{"unknown model", `{"prompt": "x", "model": "gpt-x"}`, ""},
	}
	c := dialRaw(t, addr)
	for _, tc := range cases {
		c.send(tc.req)
		resp := c.recv()
		if tc.want == "" { // SingleBackend serves any model, as rlm's default client does
			wantNullKeys(t, resp, "chat_completion")
			continue
		}
		wantNullKeys(t, resp, "error")
		if resp["error"] != tc.want {
			t.Errorf("%s: error %q, want %q", tc.name, resp["error"], tc.want)
		}
	}
}

func TestBadFramesCloseOnlyThatConnection(t *testing.T) {
	_, addr := echoServer(t, nil, &lm.Options{MaxFrame: 1024, ReadTimeout: 200 * time.Millisecond})
	cases := []struct {
		name      string
		write     func(c *rawConn)
		wantError string // "" → closed without a response
	}{
		{"array instead of object", func(c *rawConn) { c.send(`["prompt"]`) }, "Request must be a JSON object"},
		{"string instead of object", func(c *rawConn) { c.send(`"hi"`) }, "Request must be a JSON object"},
		{"not JSON", func(c *rawConn) { c.send(`{"prompt": `) }, lm.ErrInvalidJSON.Error()},
		{"over the maximum", func(c *rawConn) { c.Write([]byte{0, 0, 4, 1}) }, "wire: frame of 1025 bytes exceeds the 1024-byte maximum"},
		{"3-byte header then close", func(c *rawConn) {
			c.Write([]byte{0, 0, 0})
			c.Conn.(interface{ CloseWrite() error }).CloseWrite()
		}, ""},
		{"stall mid-frame", func(c *rawConn) { c.Write([]byte{0, 0, 0, 20, '{'}) }, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bad := dialRaw(t, addr)
			good := dialRaw(t, addr) // opened before, must survive
			tc.write(bad)
			if tc.wantError != "" {
				resp := bad.recv()
				wantNullKeys(t, resp, "error")
				if e := resp["error"].(string); !strings.HasPrefix(e, tc.wantError) {
					t.Errorf("error %q, want prefix %q", e, tc.wantError)
				}
			}
			bad.expectClosed()
			good.send(`{"prompt": "still here"}`)
			if cc := good.recv()["chat_completion"].(map[string]any); cc["response"] != "still here" {
				t.Errorf("other connection got %v", cc)
			}
		})
	}
}

func TestSequentialRequestsAndOneShot(t *testing.T) {
	_, addr := echoServer(t, nil, nil)
	c := dialRaw(t, addr)
	for _, p := range []string{"a", "b", "c"} {
		c.send(`{"prompt": "` + p + `"}`)
		if got := c.recv()["chat_completion"].(map[string]any)["response"]; got != p {
			t.Fatalf("response %q, want %q", got, p)
		}
	}
	// rlm's socket_request: send, read one response, close.
	one := dialRaw(t, addr)
	one.send(`{"prompt": "once", "depth": 0}`)
	one.recv()
	one.Close()
	// A clean close before any header is not an error: the next peer is served.
	c.send(`{"prompt": "after"}`)
	c.recv()
}

func TestInFlightLimits(t *testing.T) {
	cases := []struct {
		name              string
		maxInFlight, perB int
		want              int64
	}{
		{"handler-wide limit", 3, 16, 3},
		{"per-batch limit", 16, 2, 4}, // two batches of 2 each
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := &gauge{delay: 20 * time.Millisecond}
			_, addr := startServer(t, lm.SingleBackend("g", g), &lm.Options{MaxInFlight: tc.maxInFlight, BatchConcurrency: tc.perB})
			cl, _ := lm.NewClient(addr, nil)
			prompts := make([]string, 12)
			for i := range prompts {
				prompts[i] = "p"
			}
			errs := make(chan error, 2)
			for range 2 {
				go func() {
					_, err := cl.QueryBatch(context.Background(), prompts, "")
					errs <- err
				}()
			}
			for range 2 {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			if got := g.peak.Load(); got != tc.want {
				t.Errorf("peak concurrency %d, want %d", got, tc.want)
			}
		})
	}
}

func TestUsagePerModelConnectionHandler(t *testing.T) {
	conns := make(chan lm.UsageSummary, 4)
	router, err := lm.NewRouter(lm.RouterConfig{
		Backends: map[string]lm.Backend{"big": &backend.Echo{}, "small": &backend.Echo{}},
		Default:  "big",
		Other:    "small",
	})
	if err != nil {
		t.Fatal(err)
	}
	srv, addr := startServer(t, router, &lm.Options{ConnDone: func(_ string, u lm.UsageSummary) { conns <- u }})
	c := dialRaw(t, addr)
	c.send(`{"prompt": "two words", "depth": 0}`)
	c.recv()
	c.send(`{"prompts": ["a", "b c"], "depth": 1}`)
	c.recv()
	c.Close()
	got := <-conns
	if got.ModelUsageSummaries["big"].TotalCalls != 1 || got.ModelUsageSummaries["small"].TotalCalls != 2 {
		t.Errorf("connection usage = %+v", got)
	}
	if got.ModelUsageSummaries["small"].TotalOutputTokens != 3 {
		t.Errorf("small output tokens = %d, want 3", got.ModelUsageSummaries["small"].TotalOutputTokens)
	}
	d := dialRaw(t, addr)
	d.send(`{"prompt": "x", "model": "small"}`)
	d.recv()
	total := srv.Usage()
	if total.ModelUsageSummaries["small"].TotalCalls != 3 || total.Calls() != 4 {
		t.Errorf("handler usage = %+v", total)
	}
}

func TestBudgetRefusesOnceSpent(t *testing.T) {
	_, addr := echoServer(t, nil, &lm.Options{Budget: lm.Budget{Calls: 3}, BatchConcurrency: 1})
	cl, _ := lm.NewClient(addr, &lm.ClientOptions{KeepAlive: true})
	defer cl.Close()
	ctx := context.Background()
	comps, err := cl.QueryBatch(ctx, []string{"a", "b", "c", "d"}, "")
	var slot *lm.SlotError
	if !errors.As(err, &slot) || slot.Index != 3 || comps[2].Response != "c" {
		t.Fatalf("batch over budget: %v, %+v", err, comps)
	}
	if !strings.Contains(slot.Message, lm.ErrBudgetExhausted.Error()) {
		t.Errorf("slot error %q does not name the budget", slot.Message)
	}
	_, err = cl.Query(ctx, "e", "")
	var remote *lm.RemoteError
	if !errors.As(err, &remote) || !strings.HasPrefix(remote.Message, lm.ErrBudgetExhausted.Error()) {
		t.Fatalf("query over budget: %v", err)
	}
}

func TestTokenBudget(t *testing.T) {
	_, addr := echoServer(t, nil, &lm.Options{Budget: lm.Budget{Tokens: 4}})
	cl, _ := lm.NewClient(addr, nil)
	ctx := context.Background()
	if _, err := cl.Query(ctx, "one two three", ""); err != nil { // 6 tokens: crosses the budget
		t.Fatal(err)
	}
	if _, err := cl.Query(ctx, "four", ""); !errors.Is(err, lm.ErrRemote) {
		t.Fatalf("query after the token budget: %v, want a refusal", err)
	}
}

// A batch of many prompts against a small token budget (issue 17, item 9:
// 64 prompts against 100 tokens spent 64 times the budget): every call
// reserves its worst case before it is sent, so the handler overshoots by
// one request at most, however many prompts run at once.
func TestTokenBudgetHoldsUnderConcurrency(t *testing.T) {
	const budget = 100
	prompt := strings.TrimSpace(strings.Repeat("word ", 40)) // 40 tokens in, 40 out
	const perCall = 80
	srv, addr := echoServer(t, &backend.Echo{Delay: 20 * time.Millisecond}, &lm.Options{Budget: lm.Budget{Tokens: budget}})
	cl, _ := lm.NewClient(addr, nil)
	prompts := make([]string, 64)
	for i := range prompts {
		prompts[i] = prompt
	}
	comps, err := cl.QueryBatch(context.Background(), prompts, "")
	if err == nil {
		t.Fatal("a batch of 64 prompts of 80 tokens each fit a 100-token budget")
	}
	answered := 0
	for _, c := range comps {
		if c.Error == "" {
			answered++
		} else if !strings.Contains(c.Error, lm.ErrBudgetExhausted.Error()) {
			t.Errorf("slot error %q does not name the budget", c.Error)
		}
	}
	if used := srv.Usage().Tokens(); used > budget+perCall || answered == 0 {
		t.Errorf("%d prompts answered, %d tokens used against a budget of %d: want at most one request (%d tokens) over",
			answered, used, budget, perCall)
	}
}

func TestUnixSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lm.sock")
	ln, err := lm.Listen(context.Background(), "unix:"+path)
	if err != nil {
		t.Fatal(err)
	}
	srv := lm.NewServer(lm.SingleBackend("echo", &backend.Echo{}), nil)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	defer func() { srv.Close(); <-done }()
	if _, err := lm.Listen(context.Background(), "unix:"+path); err == nil {
		t.Error("second Listen on a live socket succeeded")
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("socket %v, %v; want mode 0600 (only its owner may spend the LM budget)", info.Mode(), err)
	}
	cl, _ := lm.NewClient("unix:"+path, nil)
	c, err := cl.Query(context.Background(), "over unix", "")
	if err != nil || c.Response != "over unix" {
		t.Fatalf("Query = %+v, %v", c, err)
	}
}

func TestCloseCancelsCallsInFlight(t *testing.T) {
	ln, _ := lm.Listen(context.Background(), "127.0.0.1:0")
	slow := &startedBackend{Backend: &backend.Echo{Delay: time.Hour}, started: make(chan struct{})}
	srv := lm.NewServer(lm.SingleBackend("slow", slow), nil)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	c := dialRaw(t, ln.Addr().String())
	c.send(`{"prompt": "never"}`)
	<-slow.started // the call is in the backend; Close must not wait an hour
	srv.Close()
	srv.Close() // safe twice
	if err := <-done; !errors.Is(err, lm.ErrServerClosed) {
		t.Errorf("Serve = %v", err)
	}
	if _, err := c.fr.ReadFrame(); err == nil || errors.Is(err, wire.ErrTooLarge) {
		t.Errorf("read after Close = %v, want the connection closed", err)
	}
	if err := srv.Serve(ln); !errors.Is(err, lm.ErrServerClosed) {
		t.Errorf("Serve after Close = %v", err)
	}
	_ = io.EOF
}

// startedBackend closes started when its first call begins.
type startedBackend struct {
	lm.Backend
	started chan struct{}
	once    sync.Once
}

func (b *startedBackend) Complete(ctx context.Context, call lm.Call) (lm.Reply, error) {
	b.once.Do(func() { close(b.started) })
	return b.Backend.Complete(ctx, call)
}
