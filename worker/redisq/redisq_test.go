package redisq_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/tether-dev/tether/internal/nojcore"
	"github.com/tether-dev/tether/internal/redistest"
	"github.com/tether-dev/tether/sandbox"
	"github.com/tether-dev/tether/worker"
	"github.com/tether-dev/tether/worker/internal/workertest"
	"github.com/tether-dev/tether/worker/redisq"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

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
	// maxTask is the workers' MaxTaskBytes (0: the default).
	maxTask int
}

func newFixture(t *testing.T) *fixture {
	srv := redistest.Start(t)
	return &fixture{t: t, srv: srv, client: srv.Client(), work: t.TempDir()}
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
		j := &worker.Judger{Runner: sandbox.NewPlain(), Packages: workertest.CopyFolder("../../examples/aplusb"), WorkDir: f.work}
		judge = j.Judge
	}
	w, err := worker.New(worker.Config{Broker: b, Judge: judge, Slots: make([]worker.SlotCPUs, slots),
		MaxTaskBytes: f.maxTask, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
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
	if r.Status != "SystemError" || !strings.Contains(d["message"], "noj-solution-cobol") {
		t.Fatalf("result %s", core.Raw[0])
	}
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
	var fallback string
	eventually(t, 30*time.Second, "the fallback file", func() bool {
		kept, _ := filepath.Glob(filepath.Join(f.work, "fallback-results", "result-s9-*-seq1.json"))
		if len(kept) == 1 {
			fallback = kept[0]
		}
		return fallback != ""
	})
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

// Only a private kept file carrying this WORK_DIR's mac is replayed: one
// that does not parse, a bare result (as a local user who made WORK_DIR
// first would plant), a forged envelope, or a well-signed file that others
// could have read or changed are renamed *.dead at start-up and never
// pushed.
func TestOnlyOwnPrivateFallbackFilesAreReplayed(t *testing.T) {
	f := newFixture(t)
	b := f.open(redisq.Options{}) // makes fallback-results and its key
	b.Close()
	dir := filepath.Join(f.work, "fallback-results")
	key, err := os.ReadFile(filepath.Join(dir, "key"))
	if err != nil {
		t.Fatal(err)
	}
	envelope := func(id string, mac []byte) []byte {
		kept := fmt.Sprintf(`{"result":{"submission_id":%q,"status":"Accepted","score":10000,"output":"","details":null,"time_ms":1,"memory_kb":1}}`, id)
		if mac == nil {
			m := hmac.New(sha256.New, key)
			m.Write([]byte(kept))
			mac = m.Sum(nil)
		}
		return []byte(fmt.Sprintf(`{"mac":%q,"kept":%s}`, hex.EncodeToString(mac), kept))
	}
	files := map[string]struct {
		body []byte
		mode os.FileMode
	}{
		"result-unparsable-seq0.json": {[]byte("{truncated"), 0o600},
		"result-bare-seq0.json":       {[]byte(`{"submission_id":"victim-42","status":"Accepted","score":10000,"output":"","details":null,"time_ms":1,"memory_kb":1}`), 0o600},
		"result-forged-seq0.json":     {envelope("victim-43", make([]byte, 32)), 0o600},
		"result-readable-seq0.json":   {envelope("victim-44", nil), 0o644},
		"result-own-seq0.json":        {envelope("own", nil), 0o600},
	}
	for name, file := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, file.body, file.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, file.mode); err != nil {
			t.Fatal(err)
		}
	}
	b = f.open(redisq.Options{})
	defer b.Close()
	results, _ := f.client.LRange(context.Background(), nojcore.ResultQueue, 0, -1).Result()
	if len(results) != 1 || !strings.Contains(results[0], `"own"`) {
		t.Fatalf("replayed %q, want only the result of \"own\"", results)
	}
	for name := range files {
		path := filepath.Join(dir, name)
		_, err := os.Stat(path + ".dead")
		if name == "result-own-seq0.json" {
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("%s: not removed after its replay (%v)", name, err)
			}
		} else if err != nil {
			t.Errorf("%s: not renamed .dead: %v", name, err)
		}
	}
}

// A WORK_DIR or fallback-results folder that others may write is refused:
// anyone could plant results in it.
func TestWritableFallbackFolderIsRefused(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(f.work, "fallback-results")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, open := range []string{dir, f.work} {
		if err := os.Chmod(open, 0o777); err != nil {
			t.Fatal(err)
		}
		_, err := redisq.Open(context.Background(), redisq.Options{URL: f.srv.URL(0), WorkDir: f.work})
		if err == nil || !strings.Contains(err.Error(), open) || !strings.Contains(err.Error(), "chmod 0700") {
			t.Errorf("Open with %s mode 0777: %v, want an error naming it and the fix", open, err)
		}
		os.Chmod(open, 0o700)
	}
}

// A task over the cap goes to :dead, byte for byte, without a result:
// taken from a queue with tasks waiting, it never leaves Redis; arriving
// while the worker waits on an empty queue (as the second one may), the
// worker refuses it before decoding it. The task under the cap is judged.
func TestOversizedTaskGoesToDead(t *testing.T) {
	f := newFixture(t)
	const maxBytes = 64 << 10
	f.maxTask = maxBytes
	b := f.open(redisq.Options{MaxTaskBytes: maxBytes})
	defer b.Close()
	ctx := context.Background()
	big := aplusbTask("big", 0, goodCode+"#"+strings.Repeat("x", maxBytes)+"\n")
	small := aplusbTask("small", 0, goodCode)
	f.client.LPush(ctx, nojcore.Queue, big, small) // big is taken first
	stop := f.startWorker(b, 1, nil)
	core := &nojcore.Consumer{C: f.client}
	eventually(t, time.Minute, "the small task's result", func() bool { core.Drain(ctx); return core.Count() == 1 })
	if f.llen(nojcore.Dead) != 1 {
		t.Fatalf("%d dead tasks, want the big one", f.llen(nojcore.Dead))
	}
	// The queue is empty now: the next task arrives by BRPOPLPUSH.
	big2 := aplusbTask("big2", 0, goodCode+"#"+strings.Repeat("y", maxBytes)+"\n")
	f.client.LPush(ctx, nojcore.Queue, big2)
	eventually(t, time.Minute, "the second big task in :dead", func() bool { return f.llen(nojcore.Dead) == 2 })
	stop()
	dead, _ := f.client.LRange(ctx, nojcore.Dead, 0, -1).Result()
	if len(dead) != 2 || dead[0] != string(big2) || dead[1] != string(big) {
		t.Fatal(":dead does not hold the two big tasks byte for byte")
	}
	core.Drain(ctx)
	if core.Count() != 1 || core.Applied["small"].Status != "Accepted" || f.llen(nojcore.Processing) != 0 {
		t.Fatalf("results %q, %d in processing: want only small's, Accepted", core.Raw, f.llen(nojcore.Processing))
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
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") || strings.Contains(err.Error(), "sekrit") {
		t.Fatalf("error %v: want one naming the URL without its password", err)
	}
}
