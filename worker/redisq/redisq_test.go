package redisq_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/tether-dev/tether/internal/nojcore"
	"github.com/tether-dev/tether/internal/redistest"
	"github.com/tether-dev/tether/sandbox"
	"github.com/tether-dev/tether/worker"
	"github.com/tether-dev/tether/worker/redisq"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// copyPackages stands in for the support package cache: it copies a
// folder of the repository (these tests are about the queue).
type copyPackages struct{ dir string }

func (c copyPackages) Extract(_ context.Context, _ string, dest string) error {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() { // submissions/: not part of what the evaluator needs
			continue
		}
		b, err := os.ReadFile(filepath.Join(c.dir, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dest, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func aplusbTask(id string, seq int64, code string) []byte {
	b, _ := json.Marshal(map[string]any{
		"submission_id": id, "problem_id": 7, "language": "python", "code": code,
		"download_url": "noj-download://base64/?content=unused&checksum_sha256=00", "file_name": "main.py",
		"rejudge_seq": seq, "some_future_field": true,
		"runtime_config": map[string]any{
			"evaluator": map[string]any{"image": "noj-evaluator-python", "command": "python3 /workspace/evaluate.py",
				"time_limit_ms": 20000, "memory_limit_mb": 256, "network": map[string]any{"enabled": false}},
			"solution": map[string]any{"image": "noj-solution-python", "call_timeout_ms": 3000, "memory_limit_mb": 256},
		},
	})
	return b
}

const goodCode = "def add(a, b):\n    return a + b\n"

type fixture struct {
	t      *testing.T
	srv    *redistest.Server
	client *redis.Client
	work   string
}

func newFixture(t *testing.T) *fixture {
	srv := redistest.Start(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { c.Close() })
	return &fixture{t: t, srv: srv, client: c, work: t.TempDir()}
}

func (f *fixture) open(opts redisq.Options) *redisq.Broker {
	f.t.Helper()
	opts.URL = f.srv.URL(0)
	if opts.WorkDir == "" {
		opts.WorkDir = f.work
	}
	opts.PollTimeout = time.Second
	b, err := redisq.Open(context.Background(), opts)
	if err != nil {
		f.t.Fatal(err)
	}
	return b
}

// startWorker runs a worker with slots slots until the returned stop is
// called; stop waits for it.
func (f *fixture) startWorker(b worker.Broker, slots int, judge func(context.Context, *worker.Task, worker.SlotCPUs) (*worker.Result, error)) (stop func()) {
	f.t.Helper()
	if judge == nil {
		j := &worker.Judger{Runner: sandbox.NewPlain(), Packages: copyPackages{"../../examples/aplusb"}, WorkDir: f.work}
		judge = j.Judge
	}
	w, err := worker.New(worker.Config{Broker: b, Judge: judge, Slots: make([]worker.SlotCPUs, slots),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		f.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, context.Background()) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			f.t.Errorf("worker: %v", err)
		}
	}
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", d, what)
		}
		time.Sleep(20 * time.Millisecond) // polling a condition, not synchronising
	}
}

func (f *fixture) llen(key string) int64 {
	n, err := f.client.LLen(context.Background(), key).Result()
	if err != nil {
		f.t.Fatal(err)
	}
	return n
}

func TestAcceptedThroughWorkspaceEvaluator(t *testing.T) {
	f := newFixture(t)
	b := f.open(redisq.Options{})
	defer b.Close()
	ctx := context.Background()
	if err := nojcore.Produce(ctx, f.client, aplusbTask("s1", 2, goodCode), 100); err != nil {
		t.Fatal(err)
	}
	stop := f.startWorker(b, 1, nil)
	core := &nojcore.Consumer{C: f.client}
	eventually(t, 60*time.Second, "a result", func() bool { core.Drain(ctx); return core.Count() == 1 })
	stop()
	r := core.Applied["s1"]
	if r.Status != "Accepted" || r.Score != 10000 || r.RejudgeSeq == nil || *r.RejudgeSeq != 2 {
		t.Fatalf("result %s", core.Raw[0])
	}
	// Neuro OJ's fields and no others.
	var fields map[string]json.RawMessage
	json.Unmarshal([]byte(core.Raw[0]), &fields)
	for k := range fields {
		switch k {
		case "submission_id", "status", "score", "output", "details", "time_ms", "memory_kb", "rejudge_seq":
		default:
			t.Errorf("result has field %q, which Neuro OJ's core does not know", k)
		}
	}
	if r.MemoryKB <= 0 {
		t.Errorf("memory_kb %d: the solution's peak should be measured", r.MemoryKB)
	}
	if n := f.llen(nojcore.Processing); n != 0 {
		t.Fatalf("%d tasks left in processing", n)
	}
}

func TestBadTasksGoToDead(t *testing.T) {
	f := newFixture(t)
	b := f.open(redisq.Options{})
	defer b.Close()
	ctx := context.Background()
	bad := []string{`{not json`, `{"submission_id":"x"}`, `[1,2]`}
	for _, raw := range bad {
		f.client.LPush(ctx, nojcore.Queue, raw)
	}
	stop := f.startWorker(b, 1, nil)
	eventually(t, 30*time.Second, "three dead tasks", func() bool { return f.llen(nojcore.Dead) == 3 })
	stop()
	dead, _ := f.client.LRange(ctx, nojcore.Dead, 0, -1).Result()
	for _, raw := range bad {
		found := false
		for _, d := range dead {
			found = found || d == raw
		}
		if !found {
			t.Errorf("%q not kept byte for byte in :dead (%q)", raw, dead)
		}
	}
	if f.llen(nojcore.Processing) != 0 || f.llen(nojcore.ResultQueue) != 0 {
		t.Fatal("a bad task left something in processing or results")
	}
}

// An unknown image is a SystemError result naming it, not a dead task.
func TestUnknownImageIsSystemError(t *testing.T) {
	f := newFixture(t)
	b := f.open(redisq.Options{})
	defer b.Close()
	ctx := context.Background()
	var task map[string]any
	json.Unmarshal(aplusbTask("s1", 0, goodCode), &task)
	task["runtime_config"].(map[string]any)["solution"].(map[string]any)["image"] = "noj-solution-cobol"
	raw, _ := json.Marshal(task)
	f.client.LPush(ctx, nojcore.Queue, raw)
	stop := f.startWorker(b, 1, nil)
	core := &nojcore.Consumer{C: f.client}
	eventually(t, 30*time.Second, "a result", func() bool { core.Drain(ctx); return core.Count() == 1 })
	stop()
	r := core.Applied["s1"]
	var d map[string]string
	json.Unmarshal(r.Details, &d)
	if r.Status != "SystemError" || !contains(d["message"], "noj-solution-cobol") {
		t.Fatalf("result %s", core.Raw[0])
	}
}

func contains(s, sub string) bool { return len(sub) > 0 && len(s) >= len(sub) && indexOf(s, sub) >= 0 }

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// Redis gone while the result is pushed: the result is kept in
// WORK_DIR/fallback-results, the task stays unacknowledged, and the result
// is replayed once Redis is back.
func TestResultKeptWhileRedisIsDownThenReplayed(t *testing.T) {
	f := newFixture(t)
	var pending sync.Map
	b := f.open(redisq.Options{ReplayEvery: 100 * time.Millisecond,
		OnFallbackPending: func(n int) { pending.Store("n", n) }})
	defer b.Close()
	ctx := context.Background()
	raw := aplusbTask("s9", 1, goodCode)
	f.client.LPush(ctx, nojcore.Queue, raw)
	judged := make(chan struct{})
	release := make(chan struct{})
	stop := f.startWorker(b, 1, func(_ context.Context, t *worker.Task, _ worker.SlotCPUs) (*worker.Result, error) {
		close(judged)
		<-release
		return &worker.Result{SubmissionID: t.SubmissionID, Status: "Accepted", Score: 10000, Details: json.RawMessage("null"), RejudgeSeq: t.RejudgeSeq}, nil
	})
	<-judged
	f.srv.Stop()
	close(release)
	fallback := filepath.Join(f.work, "fallback-results", "result-s9-seq1.json")
	eventually(t, 30*time.Second, "the fallback file", func() bool { _, err := os.Stat(fallback); return err == nil })
	stop()
	if n, _ := pending.Load("n"); n != 1 {
		t.Fatalf("fallback pending %v, want 1", n)
	}
	// Redis comes back (empty: no persistence); the task is still in
	// processing on the real one, so put it there as the core would see it.
	f.srv.Restart()
	f.client.LPush(ctx, nojcore.Processing, raw)
	core := &nojcore.Consumer{C: f.client}
	eventually(t, 30*time.Second, "the replayed result", func() bool { core.Drain(ctx); return core.Count() == 1 })
	eventually(t, 10*time.Second, "the file removed and the task acknowledged", func() bool {
		_, err := os.Stat(fallback)
		return os.IsNotExist(err) && f.llen(nojcore.Processing) == 0
	})
	if r := core.Applied["s9"]; r.Status != "Accepted" || r.RejudgeSeq == nil || *r.RejudgeSeq != 1 {
		t.Fatalf("replayed %s", core.Raw[0])
	}
}

// A kept file that does not parse is renamed *.dead at start-up.
func TestUnparsableFallbackFileIsRenamedDead(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(f.work, "fallback-results")
	os.MkdirAll(dir, 0o700)
	bad := filepath.Join(dir, "result-x-seq0.json")
	os.WriteFile(bad, []byte("{truncated"), 0o600)
	good := filepath.Join(dir, "result-y-seq0.json")
	os.WriteFile(good, []byte(`{"submission_id":"y","status":"Accepted","score":10000,"output":"","details":null,"time_ms":1,"memory_kb":1}`), 0o600)
	b := f.open(redisq.Options{})
	defer b.Close()
	if _, err := os.Stat(bad + ".dead"); err != nil {
		t.Fatalf("unparsable file not renamed .dead: %v", err)
	}
	if _, err := os.Stat(good); !os.IsNotExist(err) {
		t.Fatal("a bare result file was not replayed")
	}
	if n := f.llen(nojcore.ResultQueue); n != 1 {
		t.Fatalf("%d results after replay, want 1", n)
	}
}

// Two workers with two slots each take 40 submissions: each is judged
// once, and nothing is left in the queue or processing.
func TestTwoWorkersFortySubmissions(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const n = 40
	for i := range n {
		code := goodCode
		if i%4 == 3 {
			code = "def add(a, b):\n    return a - b\n"
		}
		if err := nojcore.Produce(ctx, f.client, aplusbTask(fmt.Sprintf("s%02d", i), 0, code), 1000); err != nil {
			t.Fatal(err)
		}
	}
	var stops []func()
	for range 2 {
		b := f.open(redisq.Options{})
		defer b.Close()
		stops = append(stops, f.startWorker(b, 2, nil))
	}
	core := &nojcore.Consumer{C: f.client}
	eventually(t, 5*time.Minute, "40 results", func() bool { core.Drain(ctx); return core.Count() == n })
	for _, s := range stops {
		s()
	}
	core.Drain(ctx)
	if core.Duplicates != 0 || len(core.Raw) != n {
		t.Fatalf("%d results for %d submissions (%d duplicates)", len(core.Raw), n, core.Duplicates)
	}
	for id, r := range core.Applied {
		want := "Accepted"
		var i int
		fmt.Sscanf(id, "s%d", &i)
		if i%4 == 3 {
			want = "WrongAnswer"
		}
		if r.Status != want {
			t.Errorf("%s: %s, want %s", id, r.Status, want)
		}
	}
	if f.llen(nojcore.Queue) != 0 || f.llen(nojcore.Processing) != 0 {
		t.Fatal("tasks left behind")
	}
	if left, _ := filepath.Glob(filepath.Join(f.work, "task-*")); len(left) != 0 {
		t.Fatalf("task folders left: %v", left)
	}
}

func TestUnreachableRedisNamesTheURL(t *testing.T) {
	_, err := redisq.Open(context.Background(), redisq.Options{URL: "redis://:sekrit@127.0.0.1:1/0"})
	if err == nil || !contains(err.Error(), "127.0.0.1:1") || contains(err.Error(), "sekrit") {
		t.Fatalf("error %v: want one naming the URL without its password", err)
	}
}
