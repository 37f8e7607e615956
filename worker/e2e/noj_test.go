package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tether-dev/tether/internal/nojcore"
	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/supportpkg"
)

// nojTask is a task as Neuro OJ's core queues it, for a package holding one
// evaluate.py.
type nojTask struct {
	id, evaluate, code string
	url                string // "": the package of evaluate, with its checksum
	evImage, solImage  string // "": Neuro OJ's python images
	timeLimitMs        int    // the evaluator's; 0: 60 s
	callTimeoutMs      int    // 0: 5 s
}

func (tk nojTask) json(t *testing.T) []byte {
	t.Helper()
	if tk.url == "" {
		tk.url = supportpkg.Base64URL(craftedZip(t, map[string][]byte{"evaluate.py": []byte(tk.evaluate)}))
	}
	if tk.evImage == "" {
		tk.evImage = "noj-evaluator-python"
	}
	if tk.solImage == "" {
		tk.solImage = "noj-solution-python"
	}
	if tk.timeLimitMs == 0 {
		tk.timeLimitMs = 60000
	}
	if tk.callTimeoutMs == 0 {
		tk.callTimeoutMs = 5000
	}
	b, _ := json.Marshal(map[string]any{
		"submission_id": tk.id, "problem_id": 7, "language": "python", "code": tk.code,
		"download_url": tk.url, "file_name": "main.py", "rejudge_seq": 0,
		"runtime_config": map[string]any{
			"evaluator": map[string]any{"image": tk.evImage, "command": "python3 /workspace/evaluate.py",
				"time_limit_ms": tk.timeLimitMs, "memory_limit_mb": 256, "network": map[string]any{"enabled": false}},
			"solution": map[string]any{"image": tk.solImage, "call_timeout_ms": tk.callTimeoutMs, "memory_limit_mb": 256},
		},
	})
	return b
}

// pushed is a result as the worker pushed it: its fields, raw.
type pushed map[string]json.RawMessage

func (f *fleet) pushed(t *testing.T, id string) pushed {
	t.Helper()
	for _, raw := range f.core.Raw {
		var p pushed
		if err := json.Unmarshal([]byte(raw), &p); err != nil {
			t.Fatalf("result %s: %v", raw, err)
		}
		if string(p["submission_id"]) == fmt.Sprintf("%q", id) {
			for k := range p {
				switch k {
				case "submission_id", "status", "score", "output", "details", "time_ms", "memory_kb", "rejudge_seq":
				default:
					t.Errorf("%s: result has field %q, which Neuro OJ's core does not know", id, k)
				}
			}
			for _, k := range []string{"status", "score", "output", "details", "time_ms", "memory_kb"} {
				if _, ok := p[k]; !ok {
					t.Errorf("%s: result lacks %q: %s", id, k, raw)
				}
			}
			return p
		}
	}
	t.Fatalf("no result for %s in %q", id, f.core.Raw)
	return nil
}

func (p pushed) str(t *testing.T, k string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(p[k], &s); err != nil {
		t.Fatalf("%s: %s is not a string: %s", p["submission_id"], k, p[k])
	}
	return s
}

func (p pushed) message(t *testing.T) string {
	t.Helper()
	var d struct{ Message string }
	json.Unmarshal(p["details"], &d)
	return d.Message
}

const (
	// nojPrinted prints indented lines (flushed: the result goes out
	// through the SDK's own channel), then answers with Neuro OJ's SDK.
	nojPrinted = `import sys
from noj_evaluator_sdk import result
print("  two spaces", flush=True)
print("\ttab and trailing  ", flush=True)
print("", flush=True)
result.accept(score=1000, passed=1)
`
	// nojRaw prints a payload by hand after the plain marker, then exits 0.
	nojRaw = `print("checking", flush=True)
print("---RESULT---")
print(%q, flush=True)
`
	// nojCallSleeper calls the solution's sleeper, which outlasts the
	// evaluator's time limit.
	nojCallSleeper = `from noj_evaluator_sdk import SolutionRunner, result
print("calling", flush=True)
SolutionRunner().call("sleeper")
result.accept()
`
	// nojSleeper sleeps itself, no call in flight.
	nojSleeper = `import time
print("thinking", flush=True)
time.sleep(120)
`
	sleeperCode = "import time\ndef sleeper():\n    time.sleep(120)\n"
)

// Neuro OJ's core's tasks, judged by tether worker on Redis, give what
// Neuro OJ's judge gives, field by field (docs/worker.md): output lines as
// printed with the result lines in them (the signed marker as the plain
// one), accept(score=1000) as 100000, an evaluator's own status passed
// through, the two time-limit cases, details null when none, a package
// without a checksum, images under any prefix, and SystemError's shape.
func TestNeuroOJResultsFieldByField(t *testing.T) {
	f := newFleet(t)
	tasks := []nojTask{
		{id: "printed", evaluate: nojPrinted, code: goodCode},
		{id: "own-status", evaluate: fmt.Sprintf(nojRaw, `{"status": "PartiallyAccepted", "score": 5000, "details": {"passed": 3}}`), code: goodCode},
		{id: "no-details", evaluate: fmt.Sprintf(nojRaw, `{"status": "WrongAnswer", "score": 0}`), code: goodCode},
		{id: "float-score", evaluate: fmt.Sprintf(nojRaw, `{"status": "Accepted", "score": 9999.6}`), code: goodCode},
		{id: "tle-in-call", evaluate: nojCallSleeper, code: sleeperCode, timeLimitMs: 1500, callTimeoutMs: 100000},
		{id: "tle-own", evaluate: nojSleeper, code: goodCode, timeLimitMs: 1500},
		{id: "no-checksum", url: strings.Split(supportpkg.Base64URL(aplusbZip(t)), "&")[0], code: goodCode},
		{id: "prefixed-images", evaluate: fmt.Sprintf(nojRaw, `{"status": "Accepted", "score": 10000}`), code: goodCode,
			evImage: "registry.example.com/noj/noj-evaluator-python:v2", solImage: "acme-noj-solution-python"},
		{id: "unknown-image", evaluate: nojPrinted, code: goodCode, evImage: "ruby"},
	}
	for _, tk := range tasks {
		f.produce(tk.json(t))
	}
	w := f.worker([]string{"JUDGE_IMAGE_PREFIX=registry.example.com/noj/"}, "--concurrency", "2")
	f.results(len(tasks), 5*time.Minute)

	// 1. Output: each line as printed, and the result lines where they were
	// printed: the marker as Neuro OJ's SDK prints it, without the nonce.
	r := f.pushed(t, "printed")
	out := r.str(t, "output")
	lines := strings.Split(out, "\n")
	if len(lines) != 6 || lines[0] != "  two spaces" || lines[1] != "\ttab and trailing  " || lines[2] != "" ||
		lines[3] != "---RESULT---" || lines[5] != "" {
		t.Errorf("printed: output %q, want the three lines as printed, ---RESULT--- and the payload", out)
	} else {
		var payload struct {
			Status string
			Score  int64
		}
		if err := json.Unmarshal([]byte(lines[4]), &payload); err != nil || payload.Status != "Accepted" || payload.Score != 100000 {
			t.Errorf("printed: payload line %q (%v)", lines[4], err)
		}
	}
	// 2. accept(score=1000): round(1000 * 100), unclamped.
	if string(r["status"]) != `"Accepted"` || string(r["score"]) != "100000" || string(r["details"]) != `{"passed":1}` {
		t.Errorf("printed: status %s score %s details %s, want Accepted, 100000, {\"passed\":1}", r["status"], r["score"], r["details"])
	}
	// 3. An evaluator's own status, with its score and details.
	r = f.pushed(t, "own-status")
	if string(r["status"]) != `"PartiallyAccepted"` || string(r["score"]) != "5000" || string(r["details"]) != `{"passed":3}` {
		t.Errorf("own-status: %s %s %s", r["status"], r["score"], r["details"])
	}
	if out := r.str(t, "output"); out != "checking\n---RESULT---\n"+`{"status": "PartiallyAccepted", "score": 5000, "details": {"passed": 3}}`+"\n" {
		t.Errorf("own-status: output %q", out)
	}
	// 4. The evaluator over its own time limit: TimeLimitExceeded while it
	// waited on the solution, SystemError when the time was its own.
	r = f.pushed(t, "tle-in-call")
	if string(r["status"]) != `"TimeLimitExceeded"` || string(r["score"]) != "0" || !strings.Contains(r.message(t), "in flight") {
		t.Errorf("tle-in-call: %s %s %q", r["status"], r["score"], r.message(t))
	}
	r = f.pushed(t, "tle-own")
	if string(r["status"]) != `"SystemError"` || r.message(t) != "evaluator exceeded its own time limit (no call to the solution was in flight)" {
		t.Errorf("tle-own: %s %q", r["status"], r.message(t))
	}
	// 5. details null when the evaluator gave none; a package without a
	// checksum is used.
	r = f.pushed(t, "no-details")
	if string(r["status"]) != `"WrongAnswer"` || string(r["details"]) != "null" {
		t.Errorf("no-details: %s details %s, want WrongAnswer, null", r["status"], r["details"])
	}
	if r = f.pushed(t, "no-checksum"); string(r["status"]) != `"Accepted"` || string(r["score"]) != "10000" {
		t.Errorf("no-checksum: %s %s %q", r["status"], r["score"], r.message(t))
	}
	w.waitLog(t, "package without checksum_sha256 used unchecked, as Neuro OJ's judge does (told once per package)", time.Minute)
	// A float score is rounded (Neuro OJ's judge takes it as 0: a
	// deliberate difference, docs/worker.md).
	if r = f.pushed(t, "float-score"); string(r["score"]) != "10000" {
		t.Errorf("float-score: score %s, want 10000", r["score"])
	}
	// 6. Images named with JUDGE_IMAGE_PREFIX, or any prefix, map.
	if r = f.pushed(t, "prefixed-images"); string(r["status"]) != `"Accepted"` {
		t.Errorf("prefixed-images: %s %q", r["status"], r.message(t))
	}
	// SystemError: every field present, time_ms and memory_kb 0.
	r = f.pushed(t, "unknown-image")
	if string(r["status"]) != `"SystemError"` || string(r["time_ms"]) != "0" || string(r["memory_kb"]) != "0" ||
		!strings.Contains(r.message(t), `"ruby"`) || r.str(t, "output") != r.message(t) {
		t.Errorf("unknown-image: %s time_ms %s memory_kb %s output %q message %q", r["status"], r["time_ms"], r["memory_kb"], r.str(t, "output"), r.message(t))
	}
}

// JUDGE_CPU_LIMIT_MILLICORES caps each sandbox's CPU with a quota: a
// solution that spins for a second of wall time gets about a tenth of a
// CPU-second under 100 millicores.
func TestNeuroOJCPUMillicores(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Require(t, "TETHER_REQUIRE_SANDBOX", fmt.Errorf("the linux sandbox is needed: run as root (euid %d)", os.Geteuid()))
	}
	f := newFleet(t)
	evaluate := `from noj_evaluator_sdk import SolutionRunner, result
cpu = SolutionRunner().call("spin", 1.0)
result.accept(cpu=cpu)
`
	code := "import time\ndef spin(wall):\n    end, start = time.monotonic() + wall, time.process_time()\n" +
		"    while time.monotonic() < end:\n        pass\n    return time.process_time() - start\n"
	f.produce(nojTask{id: "capped", evaluate: evaluate, code: code, callTimeoutMs: 30000}.json(t))
	f.worker([]string{"JUDGE_CPU_LIMIT_MILLICORES=100"}, "--sandbox", "linux")
	f.results(1, 3*time.Minute)
	r := f.pushed(t, "capped")
	var d struct{ CPU float64 }
	if string(r["status"]) != `"Accepted"` || json.Unmarshal(r["details"], &d) != nil {
		t.Fatalf("capped: %s %s", r["status"], r["details"])
	}
	t.Logf("cpu %.3f", d.CPU)
	if d.CPU > 0.1+0.2 {
		t.Fatalf("the solution used %.2f s of CPU in 1 s of wall time under 100 millicores, want about 0.1", d.CPU)
	}
}

// With Neuro OJ's worker settings and no REDIS_URL, the worker uses Neuro
// OJ's default redis://127.0.0.1/ (port 6379), not an embedded NATS
// broker, and its first log line says so and why. The worker and a
// redis-server on 127.0.0.1:6379 run in a network namespace of their own;
// the test reaches that Redis through its Unix socket.
func TestNeuroOJDefaultRedisURL(t *testing.T) {
	redisPath, err := exec.LookPath("redis-server")
	if err != nil {
		testenv.Require(t, "TETHER_REQUIRE_REDIS", err)
	}
	ns := fmt.Sprintf("tether-e2e-%d", os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		testenv.Require(t, "TETHER_REQUIRE_SANDBOX", fmt.Errorf("a network namespace is needed (root, ip): %v: %s", err, out))
	}
	t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
	if out, err := exec.Command("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		t.Fatalf("lo up: %v: %s", err, out)
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "redis.sock")
	srv := exec.Command("ip", "netns", "exec", ns, redisPath, "--port", "6379", "--bind", "127.0.0.1",
		"--unixsocket", sock, "--unixsocketperm", "700", "--save", "", "--appendonly", "no", "--dir", dir)
	var srvLog bytes.Buffer
	srv.Stdout, srv.Stderr = &srvLog, &srvLog
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	client := redis.NewClient(&redis.Options{Network: "unix", Addr: sock})
	t.Cleanup(func() { client.Close() })
	ctx := context.Background()
	for deadline := time.Now().Add(30 * time.Second); client.Ping(ctx).Err() != nil; time.Sleep(20 * time.Millisecond) { // polling a condition, not synchronising
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not answer on %s:\n%s", sock, srvLog.String())
		}
	}

	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REDIS_URL=") {
			env = append(env, kv)
		}
	}
	p := startProgram(t, append(env, "REDIS_URL=", "JUDGE_QUEUE="+nojcore.Queue), "ip", "netns", "exec", ns, tetherBin, "worker",
		"--work-dir", filepath.Join(dir, "work"), "--cache-dir", filepath.Join(dir, "cache"), "--sandbox", "none", "--log-format", "json")
	select {
	case first := <-p.lines:
		if first["msg"] != "broker chosen" || first["broker"] != "redis://127.0.0.1/" || !strings.Contains(fmt.Sprint(first["why"]), "JUDGE_QUEUE") {
			t.Fatalf("first log line %v, want the broker redis://127.0.0.1/ chosen because JUDGE_QUEUE is set", first)
		}
	case <-time.After(time.Minute):
		t.Fatal("no log line within a minute")
	}
	p.waitLog(t, "worker ready", time.Minute)
	if err := nojcore.Produce(ctx, client, task{id: "default-url", url: supportpkg.Base64URL(aplusbZip(t)), code: goodCode}.json(), 10); err != nil {
		t.Fatal(err)
	}
	core := &nojcore.Consumer{C: client}
	for deadline := time.Now().Add(2 * time.Minute); core.Count() == 0; time.Sleep(20 * time.Millisecond) { // polling a condition, not synchronising
		if _, err := core.Drain(ctx); err != nil && !errors.Is(err, redis.Nil) {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("no result within 2 minutes")
		}
	}
	if r := core.Applied["default-url"]; r.Status != "Accepted" {
		t.Fatalf("result %q", core.Raw)
	}
}
