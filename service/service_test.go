package service

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tether-dev/tether/internal/version"
	"github.com/tether-dev/tether/jsonrpc"
	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/lm/lmconfig"
	"github.com/tether-dev/tether/sandbox"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// progressLog collects the $/progress values a client receives.
type progressLog struct {
	mu     sync.Mutex
	values []map[string]any
}

func (p *progressLog) handle(_ context.Context, req *jsonrpc.Request) (any, error) {
	var n struct {
		Token any            `json:"token"`
		Value map[string]any `json:"value"`
	}
	if err := json.Unmarshal(req.Params, &n); err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.values = append(p.values, n.Value)
	p.mu.Unlock()
	return nil, nil
}

func (p *progressLog) phases() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, v := range p.values {
		s := v["phase"].(string)
		if line, ok := v["evaluator_line"].(string); ok {
			s += ":" + line
		}
		out = append(out, s)
	}
	return out
}

// connect serves svc on one end of a pipe and returns a client on the
// other, whose $/progress notifications land in the returned log (one at
// a time, so in order).
func connect(t *testing.T, svc *Service) (*jsonrpc.Conn, *progressLog) {
	t.Helper()
	a, b := net.Pipe()
	server := jsonrpc.NewConn(jsonrpc.NDJSON(a, a, 0), &jsonrpc.Options{Handler: svc.Mux()})
	log := &progressLog{}
	mux := jsonrpc.NewMux()
	mux.AddFunc("$/progress", log.handle)
	client := jsonrpc.NewConn(jsonrpc.NDJSON(b, b, 0), &jsonrpc.Options{Handler: mux, MaxConcurrent: 1})
	t.Cleanup(func() {
		client.Close()
		server.Close()
	})
	return client, log
}

// bundle is an inline problem whose evaluator is a shell script, and whose
// solution command runs the submitted main.py with sh, so the test needs
// no SDK: the evaluator prints two lines, waits delay, then its result.
func bundle(delay string) map[string]any {
	return map[string]any{"files": map[string]string{
		"problem.json": `{"title":"sh","runtime_config":{"evaluator":{"command":"sh evaluate.sh","time_limit_ms":20000},` +
			`"solution":{"command":["sh","main.py"]}}}`,
		"evaluate.sh": "echo 'checking 1'\necho 'checking 2'\nsleep " + delay + "\necho '---RESULT---'\necho '{\"status\":\"Accepted\",\"score\":10000}'\n",
	}}
}

const readySolution = `echo '{"type":"ready"}'; cat >/dev/null`

func newService() *Service { return New(&Options{Runner: sandbox.NewPlain()}) }

func TestVersion(t *testing.T) {
	client, _ := connect(t, newService())
	var v VersionResult
	if err := client.Call(context.Background(), "tether.version", nil, &v); err != nil {
		t.Fatal(err)
	}
	if v.Version != version.Version || v.Protocols["jsonrpc"] != "2.0" || v.Protocols["dual"] == "" {
		t.Errorf("tether.version = %+v", v)
	}
	err := client.Call(context.Background(), "tether.version", []int{1}, nil)
	if !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Errorf("with params: %v, want ErrInvalidParams", err)
	}
}

func TestJudgeRunSendsProgressThenTheResult(t *testing.T) {
	client, log := connect(t, newService())
	var res struct {
		SubmissionID string `json:"submission_id"`
		Status       string `json:"status"`
		Score        int64  `json:"score"`
		Output       string `json:"output"`
	}
	params := map[string]any{"problem": bundle("0"), "solution": map[string]any{"language": "sh", "code": readySolution}, "submission_id": "s-1"}
	if err := client.Call(context.Background(), "judge.run", params, &res); err != nil {
		t.Fatal(err)
	}
	if res.SubmissionID != "s-1" || res.Status != "Accepted" || res.Score != 10000 || !strings.Contains(res.Output, "checking 2") {
		t.Errorf("result %+v", res)
	}
	// The notifications were written before the response, but the client
	// handles them on its own goroutine: wait until the last one is in.
	waitFor(t, func() bool { return len(log.phases()) >= 4 })
	got := strings.Join(log.phases(), " | ")
	want := "started | running:checking 1 | running:checking 2 | finished"
	if got != want {
		t.Errorf("progress %q, want %q", got, want)
	}
}

func TestJudgeCancelStopsTheRun(t *testing.T) {
	svc := newService()
	client, log := connect(t, svc)
	errc := make(chan error, 1)
	go func() {
		params := map[string]any{"problem": bundle("60"), "solution": map[string]any{"code": readySolution}, "submission_id": "long"}
		errc <- client.Call(context.Background(), "judge.run", params, nil)
	}()
	waitFor(t, func() bool { return len(log.phases()) >= 3 }) // the evaluator is running
	var again CancelResult
	err := client.Call(context.Background(), "judge.run", map[string]any{"problem": bundle("0"), "solution": map[string]any{"code": readySolution}, "submission_id": "long"}, nil)
	if !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Errorf("second run with the same id: %v, want ErrInvalidParams", err)
	}
	var res CancelResult
	if err := client.Call(context.Background(), "judge.cancel", CancelParams{SubmissionID: "long"}, &res); err != nil || !res.Cancelled {
		t.Fatalf("judge.cancel = %+v, %v", res, err)
	}
	err = <-errc
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeCancelled || !strings.Contains(string(rpcErr.Data), "judge.cancel") {
		t.Fatalf("cancelled run: %v, want -32800 naming judge.cancel", err)
	}
	if err := client.Call(context.Background(), "judge.cancel", CancelParams{SubmissionID: "long"}, &again); err != nil || again.Cancelled {
		t.Errorf("cancel after the end = %+v, %v; want false", again, err)
	}
}

func TestCancelRequestStopsTheRun(t *testing.T) {
	svc := newService()
	client, log := connect(t, svc)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		errc <- client.Call(ctx, "judge.run", map[string]any{"problem": bundle("60"), "solution": map[string]any{"code": readySolution}}, nil)
	}()
	waitFor(t, func() bool { return len(log.phases()) >= 3 })
	cancel() // sends $/cancelRequest
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("call: %v", err)
	}
	waitFor(t, func() bool {
		svc.mu.Lock()
		defer svc.mu.Unlock()
		return len(svc.runs) == 0
	})
}

func TestJudgeRunBadParams(t *testing.T) {
	client, _ := connect(t, newService())
	for name, params := range map[string]any{
		"no problem":       map[string]any{"solution": map[string]any{"code": "x"}},
		"missing folder":   map[string]any{"problem": "/nonexistent/problem", "solution": map[string]any{"code": "x"}},
		"escaping bundle":  map[string]any{"problem": map[string]any{"files": map[string]string{"../x": ""}}, "solution": map[string]any{"code": "x"}},
		"no solution":      map[string]any{"problem": bundle("0")},
		"code and path":    map[string]any{"problem": bundle("0"), "solution": map[string]any{"code": "x", "path": "y"}},
		"problem a number": map[string]any{"problem": 5, "solution": map[string]any{"code": "x"}},
	} {
		err := client.Call(context.Background(), "judge.run", params, nil)
		if !errors.Is(err, jsonrpc.ErrInvalidParams) {
			t.Errorf("%s: %v, want ErrInvalidParams", name, err)
		}
	}
	if err := client.Call(context.Background(), "judge.cancel", map[string]any{}, nil); !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Errorf("judge.cancel without id: %v", err)
	}
}

func TestLMComplete(t *testing.T) {
	client, _ := connect(t, newService())
	err := client.Call(context.Background(), "lm.complete", map[string]any{"prompt": "hi"}, nil)
	if !errors.Is(err, &jsonrpc.Error{Code: CodeNoLM}) {
		t.Errorf("without an LM handler: %v, want code %d", err, CodeNoLM)
	}

	cfg := lmconfig.Echo()
	router, err := cfg.Router(nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := lm.NewServer(router, cfg.Options())
	ln, err := lm.Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer func() {
		srv.Close()
		<-served
	}()
	lmClient, err := lm.NewClient(lm.FormatAddr(ln.Addr()), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lmClient.Close()
	client, _ = connect(t, New(&Options{LM: lmClient}))
	var resp struct {
		ChatCompletion *struct {
			Prompt   json.RawMessage `json:"prompt"`
			Response string          `json:"response"`
		} `json:"chat_completion"`
		Error *string `json:"error"`
	}
	if err := client.Call(context.Background(), "lm.complete", map[string]any{"prompt": "hello there"}, &resp); err != nil {
		t.Fatal(err)
	}
	if resp.ChatCompletion == nil || string(resp.ChatCompletion.Prompt) != `"hello there"` || resp.ChatCompletion.Response == "" {
		t.Errorf("lm.complete = %+v", resp)
	}
	if err := client.Call(context.Background(), "lm.complete", []int{1}, nil); !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Errorf("array params: %v, want ErrInvalidParams", err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 20s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Every method takes params._meta (progress token, trace id) next to its
// own params.
func TestEveryMethodAcceptsMeta(t *testing.T) {
	client, log := connect(t, newService())
	ctx := context.Background()
	meta := map[string]any{"progressToken": "tok", "traceId": "abc"}
	var v VersionResult
	if err := client.Call(ctx, "tether.version", map[string]any{"_meta": meta}, &v); err != nil || v.Version != version.Version {
		t.Errorf("tether.version with _meta: %+v, %v", v, err)
	}
	if err := client.Call(ctx, "tether.version", map[string]any{"_meta": meta, "x": 1}, nil); !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Errorf("tether.version with _meta and a param: %v, want ErrInvalidParams", err)
	}
	var c CancelResult
	if err := client.Call(ctx, "judge.cancel", map[string]any{"_meta": meta, "submission_id": "none"}, &c); err != nil || c.Cancelled {
		t.Errorf("judge.cancel with _meta: %+v, %v", c, err)
	}
	if err := client.Call(ctx, "lm.complete", map[string]any{"_meta": meta, "prompt": "hi"}, nil); !errors.Is(err, &jsonrpc.Error{Code: CodeNoLM}) {
		t.Errorf("lm.complete with _meta: %v, want code %d (not -32602)", err, CodeNoLM)
	}
	var res struct{ Status string }
	params := map[string]any{"_meta": meta, "problem": bundle("0"), "solution": map[string]any{"code": readySolution}}
	if err := client.Call(ctx, "judge.run", params, &res); err != nil || res.Status != "Accepted" {
		t.Errorf("judge.run with _meta: %+v, %v", res, err)
	}
	waitFor(t, func() bool { return len(log.phases()) >= 4 })
}
