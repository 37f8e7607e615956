package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tether-dev/tether/internal/testfiles"
	"github.com/tether-dev/tether/internal/testlines"
	"github.com/tether-dev/tether/internal/version"
	"github.com/tether-dev/tether/jsonrpc"
	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/lm/lmconfig"
	"github.com/tether-dev/tether/sandbox"
	"github.com/tether-dev/tether/trace"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// progressLog collects the $/progress values a client receives.
type progressLog struct {
	mu     sync.Mutex
	values []map[string]any
	added  chan struct{} // a value was added since the last wait; cap 1
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
	select {
	case p.added <- struct{}{}:
	default:
	}
	return nil, nil
}

// waitPhases waits for the n-th notification (20 s at most).
func (p *progressLog) waitPhases(t *testing.T, n int) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for len(p.phases()) < n {
		select {
		case <-p.added:
		case <-timeout:
			t.Fatalf("%d notifications after 20 s, want %d", len(p.phases()), n)
		}
	}
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
	log := &progressLog{added: make(chan struct{}, 1)}
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
	log.waitPhases(t, 4)
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
	log.waitPhases(t, 3) // the evaluator is running
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
	log.waitPhases(t, 3)
	cancel() // sends $/cancelRequest
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("call: %v", err)
	}
	waitFor(t, func() bool {
		svc.mu.Lock()
		defer svc.mu.Unlock()
		return len(svc.runs) == 0
	})

	// What the server answers, read raw (the client above gives up locally
	// on cancel): -32800 for the cancelled judge.run, after which the
	// connection goes on.
	raw := connectRaw(t, svc)
	raw.send(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "judge.run",
		"params": map[string]any{"problem": bundle("60"), "solution": map[string]any{"code": readySolution}}})
	for m := raw.next(); m.Params.Value.EvaluatorLine != "checking 2"; m = raw.next() { // the evaluator is running
		if m.Method != "$/progress" {
			t.Fatalf("judge.run answered before it was cancelled: %+v", m)
		}
	}
	raw.send(map[string]any{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": map[string]any{"id": 7}})
	m := raw.next()
	for m.Method == "$/progress" {
		m = raw.next()
	}
	if string(m.ID) != "7" || m.Error == nil || m.Error.Code != jsonrpc.CodeCancelled || m.Result != nil {
		t.Fatalf("cancelled judge.run answered %+v (error %+v), want id 7 with error -32800", m, m.Error)
	}
	raw.send(map[string]any{"jsonrpc": "2.0", "id": 8, "method": "tether.version"})
	if m := raw.next(); string(m.ID) != "8" || m.Error != nil {
		t.Errorf("tether.version after the cancel: %+v", m)
	}
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
	cfg.Fallback = "" // an unknown model is the handler's error
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
	// No prompt: the client's mistake, said with the field's name (issue 17,
	// item 11: it was -32603 naming a Go type).
	for _, params := range []map[string]any{{}, {"prompt": nil}, {"prompts": []string{}}, {"model": "m"}} {
		err := client.Call(context.Background(), "lm.complete", params, nil)
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams ||
			!strings.Contains(string(rpcErr.Data), "prompt") || strings.Contains(string(rpcErr.Data), "*lm.") {
			t.Errorf("lm.complete %v: %v, want -32602 naming prompt", params, err)
		}
	}
	// An error the handler answers is the handler's, not an internal error
	// with a Go type in it.
	err = client.Call(context.Background(), "lm.complete", map[string]any{"prompt": "x", "model": "no-such-model"}, nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != CodeLMError || strings.Contains(err.Error(), "*lm.") {
		t.Errorf("lm.complete with an unknown model: %v, want code %d", err, CodeLMError)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 20s")
		}
		time.Sleep(10 * time.Millisecond) // polling a condition, not synchronising
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
	log.waitPhases(t, 4)
}

// rawClient is the test's end of a connection to a Service, read as raw
// NDJSON: every line the server writes, in the order written.
type rawClient struct {
	t     *testing.T
	conn  net.Conn
	lines *testlines.Reader
}

func connectRaw(t *testing.T, svc *Service) *rawClient {
	t.Helper()
	a, b := net.Pipe()
	server := jsonrpc.NewConn(jsonrpc.NDJSON(a, a, 0), &jsonrpc.Options{Handler: svc.Mux()})
	c := &rawClient{t: t, conn: b, lines: testlines.Read(t, b)}
	t.Cleanup(func() {
		b.Close()
		server.Close()
	})
	return c
}

func (c *rawClient) send(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.conn.Write(append(b, '\n')); err != nil {
		c.t.Fatalf("send %s: %v", b, err)
	}
}

// rawMessage is any message the server sends.
type rawMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Token json.RawMessage `json:"token"`
		Value progressValue   `json:"value"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
}

func (c *rawClient) next() rawMessage {
	c.t.Helper()
	line := c.lines.Next()
	var m rawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		c.t.Fatalf("%s: %v", line, err)
	}
	return m
}

// callingBundle is an inline problem whose sh evaluator makes n calls, one
// after the other, to a sh solution that answers each.
func callingBundle(n int) (problem map[string]any, solution string) {
	problem = map[string]any{"files": map[string]string{
		"problem.json": `{"title":"calls","runtime_config":{"evaluator":{"command":"sh evaluate.sh","time_limit_ms":20000},` +
			`"solution":{"command":["sh","main.py"]}}}`,
		"evaluate.sh": fmt.Sprintf("i=0\nwhile [ $i -lt %d ]; do\n  i=$((i+1))\n"+
			`  echo "{\"type\":\"call\",\"id\":\"c$i\",\"fn\":\"f\",\"args\":[$i]}"`+"\n  read reply\ndone\n"+
			"echo '---RESULT---'\necho '{\"status\":\"Accepted\",\"score\":10000}'\n", n),
	}}
	solution = `echo '{"type":"ready"}'` + "\ni=0\nwhile read line; do\n  i=$((i+1))\n" +
		`  echo "{\"type\":\"result\",\"id\":\"c$i\",\"value\":$i}"` + "\ndone\n"
	return problem, solution
}

// judge.run sends $/progress after each completed call, with calls counting
// up and elapsed_ms never going back, and all of them before the response.
func TestJudgeRunSendsProgressPerCall(t *testing.T) {
	c := connectRaw(t, newService())
	problem, solution := callingBundle(3)
	c.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "judge.run",
		"params": map[string]any{"problem": problem, "solution": map[string]any{"code": solution}}})
	var progress []progressValue
	var resp rawMessage
	for {
		m := c.next()
		if m.Method == "$/progress" {
			if string(m.Params.Token) != "1" {
				t.Errorf("progress token %s, want the request id 1", m.Params.Token)
			}
			progress = append(progress, m.Params.Value)
			continue
		}
		resp = m
		break
	}
	var res struct {
		Status string
		Calls  struct{ Count int }
	}
	if resp.Error != nil || json.Unmarshal(resp.Result, &res) != nil || res.Status != "Accepted" || res.Calls.Count != 3 {
		t.Fatalf("response %+v (result %s)", resp, resp.Result)
	}
	var calls []int64
	var elapsed int64
	for i, v := range progress {
		if v.ElapsedMs < elapsed {
			t.Errorf("progress %d: elapsed_ms %d after %d", i, v.ElapsedMs, elapsed)
		}
		elapsed = v.ElapsedMs
		if v.Phase == "running" && v.EvaluatorLine == "" {
			calls = append(calls, v.Calls)
		}
	}
	if fmt.Sprint(calls) != "[1 2 3]" {
		t.Errorf("per-call progress calls = %v, want [1 2 3] (all: %+v)", calls, progress)
	}
	if len(progress) < 2 || progress[0].Phase != "started" || progress[len(progress)-1].Phase != "finished" ||
		progress[len(progress)-1].Calls != 3 {
		t.Errorf("progress %+v: want started first, finished with calls 3 last", progress)
	}
}

// A client that reads progress slowly loses intermediate values, never
// the last one; what it gets is in order and says how many were dropped.
func TestProgressKeepsTheLastValueForASlowClient(t *testing.T) {
	unblock := make(chan struct{})
	var got []progressValue
	p := startPump(func(v progressValue) {
		<-unblock // the client reads nothing until every value is offered
		got = append(got, v)
	})
	const n = 4 * progressQueue
	p.offer(progressValue{Phase: "started"})
	for i := 1; i <= n; i++ {
		p.offer(progressValue{Phase: "running", Calls: int64(i)})
	}
	p.offer(progressValue{Phase: "finished", Calls: n})
	close(unblock)
	p.stop()
	if len(got) == 0 || len(got) > 2*progressQueue+1 {
		t.Fatalf("%d values sent for %d offered: the queue is not bounded", len(got), n+2)
	}
	last := got[len(got)-1]
	if last.Phase != "finished" || last.Calls != n {
		t.Errorf("last progress %+v, want finished with calls %d", last, n)
	}
	if got[0].Phase != "started" {
		t.Errorf("first progress %+v, want started", got[0])
	}
	for i := 2; i < len(got); i++ {
		if got[i].Calls <= got[i-1].Calls && got[i].Phase == "running" {
			t.Errorf("progress out of order: %+v after %+v", got[i], got[i-1])
		}
	}
	if want := int64(n + 2 - len(got)); last.Dropped != want {
		t.Errorf("last progress says dropped %d, want %d", last.Dropped, want)
	}
}

// Options.AllowedCommands replaces the allow-list of the evaluator
// command's first word, for a problem folder and an inline bundle alike;
// nil is the judge's default list, on which sh is.
func TestAllowedCommands(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	testfiles.Write(t, dir, bundle("0")["files"].(map[string]string))
	problems := map[string]any{"folder": dir, "bundle": bundle("0")}
	strict, _ := connect(t, New(&Options{Runner: sandbox.NewPlain(), AllowedCommands: []string{"python3", "node"}}))
	def, _ := connect(t, newService())
	for name, problem := range problems {
		params := map[string]any{"problem": problem, "solution": map[string]any{"code": readySolution}}
		err := strict.Call(ctx, "judge.run", params, nil)
		var rpcErr *jsonrpc.Error
		var data struct{ Reason string }
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || json.Unmarshal(rpcErr.Data, &data) != nil ||
			!strings.Contains(data.Reason, `not on the allow-list: "sh" (allowed: python3, node)`) {
			t.Errorf("%s, sh not allowed: %v; want -32602 saying sh is not on the allow-list", name, err)
		}
		var res struct{ Status string }
		if err := def.Call(ctx, "judge.run", params, &res); err != nil || res.Status != "Accepted" {
			t.Errorf("%s, default list: %+v, %v", name, res, err)
		}
	}
	shOnly, _ := connect(t, New(&Options{Runner: sandbox.NewPlain(), AllowedCommands: []string{"sh"}}))
	var res struct{ Status string }
	params := map[string]any{"problem": bundle("0"), "solution": map[string]any{"code": readySolution}}
	if err := shOnly.Call(ctx, "judge.run", params, &res); err != nil || res.Status != "Accepted" {
		t.Errorf("allow-list [sh]: %+v, %v", res, err)
	}
}

// logRecords are the records of a JSON log, one a line.
func logRecords(t *testing.T, log string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		if len(line) == 0 {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %s: %v", line, err)
		}
		out = append(out, rec)
	}
	return out
}

// The service's log lines about a request carry the trace id the client
// sent (params._meta.traceId or traceparent); a request without one gets
// no trace_id.
func TestLogsCarryTheTraceID(t *testing.T) {
	var logs testlines.Buffer
	svc := New(&Options{Runner: sandbox.NewPlain(), AllowedCommands: []string{"sh"},
		Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	client, _ := connect(t, svc)
	ctx := context.Background()
	run := func(trace map[string]any, problem any, sub string) error {
		params := map[string]any{"problem": problem, "solution": map[string]any{"code": readySolution}, "submission_id": sub}
		if trace != nil {
			params["_meta"] = trace
		}
		return client.Call(ctx, "judge.run", params, nil)
	}
	if err := run(map[string]any{"traceId": "trace-ok"}, bundle("0"), "ok"); err != nil {
		t.Fatal(err)
	}
	refused := map[string]any{"files": map[string]string{"problem.json": `{"runtime_config":{"evaluator":{"command":"perl x"}}}`}}
	if err := run(map[string]any{"traceId": "trace-refused"}, refused, "refused"); !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Fatalf("perl evaluator: %v", err)
	}
	const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	if err := client.Call(ctx, "judge.cancel", map[string]any{"_meta": map[string]any{"traceparent": parent}, "submission_id": "none"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := run(nil, bundle("0"), "untraced"); err != nil {
		t.Fatal(err)
	}

	want := map[string]string{ // message and submission id → trace id
		"judge.run started/ok":        "trace-ok",
		"judge.run finished/ok":       "trace-ok",
		"judge.run refused/refused":   "trace-refused",
		"judge.cancel/none":           "4bf92f3577b34da6a3ce929d0e0e4736",
		"judge.run started/untraced":  "",
		"judge.run finished/untraced": "",
	}
	seen := map[string]bool{}
	for _, rec := range logRecords(t, logs.String()) {
		key := fmt.Sprint(rec["msg"], "/", rec["submission_id"])
		trace, _ := rec["trace_id"].(string)
		w, ok := want[key]
		if !ok {
			continue
		}
		seen[key] = true
		if trace != w {
			t.Errorf("log %q: trace_id %q, want %q (%v)", key, trace, w, rec)
		}
	}
	for key := range want {
		if !seen[key] {
			t.Errorf("no log line %q in\n%s", key, logs.String())
		}
	}
}

// A service built without a runner refuses judge.run with a message naming
// the option, rather than running the solution unsandboxed.
func TestJudgeRunWithoutARunner(t *testing.T) {
	client, _ := connect(t, New(nil))
	params := map[string]any{"problem": bundle("0"), "solution": map[string]any{"code": readySolution}}
	err := client.Call(context.Background(), "judge.run", params, nil)
	if err == nil || !strings.Contains(err.Error(), "Options.Runner") {
		t.Fatalf("judge.run without a runner: %v, want an error naming Options.Runner", err)
	}
}

// "trace": true returns the run's trace as one JSON array: its header, its
// lines and calls, the verdict and the end line.
func TestJudgeRunReturnsTheTrace(t *testing.T) {
	client, _ := connect(t, newService())
	var res struct {
		Status string            `json:"status"`
		Trace  []json.RawMessage `json:"trace"`
	}
	params := map[string]any{"problem": bundle("0"), "solution": map[string]any{"code": readySolution}, "trace": true}
	if err := client.Call(context.Background(), "judge.run", params, &res); err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, l := range res.Trace {
		text.Write(l)
		text.WriteByte('\n')
	}
	h, evs, err := trace.ReadAll(strings.NewReader(text.String()))
	if err != nil || res.Status != "Accepted" || h.Problem != "sh" || len(evs) < 4 {
		t.Fatalf("%v: status %s, trace:\n%s", err, res.Status, text.String())
	}
	if evs[len(evs)-2].Ev != trace.KindVerdict || evs[len(evs)-1].Ev != trace.KindEnd ||
		!strings.Contains(text.String(), `"text":"checking 2"`) {
		t.Fatalf("trace:\n%s", text.String())
	}
	var plain map[string]json.RawMessage
	if err := client.Call(context.Background(), "judge.run", map[string]any{"problem": bundle("0"),
		"solution": map[string]any{"code": readySolution}}, &plain); err != nil {
		t.Fatal(err)
	}
	if _, ok := plain["trace"]; ok || plain["status"] == nil {
		t.Fatalf("without \"trace\": true the result has %v", plain)
	}
}
