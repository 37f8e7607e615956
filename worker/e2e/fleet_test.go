package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/nojcore"
	"github.com/tether-dev/tether/supportpkg"
)

// Packages by both of Neuro OJ's forms, from a local TLS server whose CA
// the worker is given, and the ones that cannot be had: each a result,
// SystemError naming why.
func TestPackagesThroughTheWorker(t *testing.T) {
	f := newFleet(t)
	zipBytes := aplusbZip(t)
	pkgURL, env := tlsServer(t, zipBytes)
	escape := craftedZip(t, map[string][]byte{"evaluate.py": []byte("print(1)\n"), "../escape.py": []byte("x")})
	bomb := craftedZip(t, map[string][]byte{"evaluate.py": bytes.Repeat([]byte{0}, 65<<20)})
	cases := []struct {
		id, url, status, message string
	}{
		{"base64", supportpkg.Base64URL(zipBytes), "Accepted", ""},
		{"s3", s3URL(pkgURL, sha(zipBytes)), "Accepted", ""},
		{"mismatch", s3URL(pkgURL, strings.Repeat("ab", 32)), "SystemError", "checksum"},
		{"escape", supportpkg.Base64URL(escape), "SystemError", "escape.py"},
		{"bomb", supportpkg.Base64URL(bomb), "SystemError", "MiB"},
	}
	for _, c := range cases {
		f.produce(task{id: c.id, url: c.url, code: goodCode}.json())
	}
	f.worker(env, "--concurrency", "2")
	f.results(len(cases), 3*time.Minute)
	for _, c := range cases {
		r := f.core.Applied[c.id]
		if r.Status != c.status || !strings.Contains(message(t, r), c.message) {
			t.Errorf("%s: %s %q, want %s naming %q", c.id, r.Status, message(t, r), c.status, c.message)
		}
	}
}

// kill -9 of a worker mid-run: the task stays in processing, the sweeper
// requeues it, a second worker judges it, and one result is applied.
func TestKilledWorkerTaskIsRequeuedAndJudgedOnce(t *testing.T) {
	f := newFleet(t)
	gate := filepath.Join(t.TempDir(), "gate")
	started := filepath.Join(t.TempDir(), "started")
	code := fmt.Sprintf("open(%q, 'w').close()\n", started) + gatedCode(gate) // the package is in place once it runs
	f.produce(task{id: "k1", url: supportpkg.Base64URL(aplusbZip(t)), code: code, callTimeoutMs: 100000}.json())
	shared := t.TempDir() // both workers' WORK_DIR
	first := f.workerIn(shared, nil)
	first.waitLog(t, "judging", time.Minute)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) { // polling a condition, not synchronising
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the solution did not start within a minute")
		}
	}
	first.cmd.Process.Signal(syscall.SIGKILL)
	first.exit(t, 30*time.Second)
	if n := f.llen(nojcore.Processing); n != 1 {
		t.Fatalf("%d tasks in processing after the kill, want 1", n)
	}
	sweeper := &nojcore.Sweeper{C: f.client, Timeout: time.Nanosecond}
	ctx := context.Background()
	for requeued := 0; requeued == 0; {
		n, err := sweeper.Sweep(ctx) // the first pass notes it, the next requeues it
		if err != nil {
			t.Fatal(err)
		}
		requeued += n
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	killed, _ := filepath.Glob(filepath.Join(first.workDir, "task-*"))
	if len(killed) != 1 {
		t.Fatalf("task folders after the kill: %q, want the killed worker's one", killed)
	}
	second := f.workerIn(shared, nil)
	if _, err := os.Stat(killed[0]); !os.IsNotExist(err) {
		t.Fatalf("the killed worker's task folder %s was not removed at start-up (%v)", killed[0], err)
	}
	f.results(1, 2*time.Minute)
	second.cmd.Process.Signal(syscall.SIGTERM)
	if code := second.exit(t, time.Minute); code != 0 {
		t.Fatalf("exit %d after SIGTERM", code)
	}
	f.core.Drain(ctx)
	if f.core.Applied["k1"].Status != "Accepted" || len(f.core.Raw) != 1 || f.core.Duplicates != 0 {
		t.Fatalf("results %q", f.core.Raw)
	}
	if f.llen(nojcore.Queue)+f.llen(nojcore.Processing) != 0 {
		t.Fatal("the task is still queued")
	}
}

// SIGTERM: no more pulls; a running submission finishes within the drain,
// one still running when it ends goes back to the queue at once, and the
// worker exits 0 leaving no process behind.
func TestSIGTERMDrain(t *testing.T) {
	f := newFleet(t)
	dir := t.TempDir()
	fast, never := filepath.Join(dir, "fast"), filepath.Join(dir, "never")
	pkg := supportpkg.Base64URL(aplusbZip(t))
	f.produce(task{id: "finishes", url: pkg, code: gatedCode(fast), callTimeoutMs: 100000}.json())
	f.produce(task{id: "unfinished", url: pkg, code: gatedCode(never), callTimeoutMs: 100000}.json())
	f.produce(task{id: "unstarted", url: pkg, code: goodCode}.json())
	w := f.worker(nil, "--concurrency", "2", "--drain", "8s")
	w.waitLog(t, "judging", time.Minute)
	w.waitLog(t, "judging", time.Minute)
	w.cmd.Process.Signal(syscall.SIGTERM)
	w.waitLog(t, "stopping: no more pulls; running submissions may finish", 30*time.Second)
	os.WriteFile(fast, nil, 0o644)
	if code := w.exit(t, 2*time.Minute); code != 0 {
		t.Fatalf("exit %d", code)
	}
	f.core.Drain(context.Background())
	if f.core.Count() != 1 || f.core.Applied["finishes"].Status != "Accepted" {
		t.Fatalf("results %q, want only the one that finished", f.core.Raw)
	}
	queued, _ := f.client.LRange(context.Background(), nojcore.Queue, 0, -1).Result()
	joined := strings.Join(queued, "\n")
	if len(queued) != 2 || !strings.Contains(joined, `"unfinished"`) || !strings.Contains(joined, `"unstarted"`) {
		t.Fatalf("queue %q, want the unfinished and the unstarted task", queued)
	}
	if n := f.llen(nojcore.Processing); n != 0 {
		t.Fatalf("%d tasks left in processing", n)
	}
	if left, _ := filepath.Glob(filepath.Join(w.workDir, "task-*")); len(left) > 0 {
		t.Fatalf("task folders left: %v", left)
	}
}

// A broker that cannot be reached at start-up is an error naming it; one
// lost while running is retried, and the task queued after it is back is
// judged.
func TestBrokerUnreachableThenLost(t *testing.T) {
	p := startTether(t, nil, "worker", "--broker", "redis://:hunter2@127.0.0.1:1/0", "--sandbox", "none", "--log-format", "json")
	if code := p.exit(t, time.Minute); code == 0 {
		t.Fatal("worker started without its broker")
	}
	if log := p.logText(); !strings.Contains(log, "127.0.0.1:1") || strings.Contains(log, "hunter2") {
		t.Fatalf("start-up error does not name the URL (or shows the password):\n%s", log)
	}

	f := newFleet(t)
	w := f.worker(nil)
	f.srv.Stop()
	w.waitLog(t, "broker unreachable, retrying", time.Minute)
	f.srv.Restart()
	f.produce(task{id: "after", url: supportpkg.Base64URL(aplusbZip(t)), code: goodCode}.json())
	f.results(1, 2*time.Minute)
	if r := f.core.Applied["after"]; r.Status != "Accepted" {
		t.Fatalf("result %q", f.core.Raw)
	}
}

// tether submit writes Neuro OJ's task format to Redis and waits for the
// worker's result.
func TestSubmitThroughRedis(t *testing.T) {
	f := newFleet(t)
	f.worker(nil)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tetherBin, "submit", "../../examples/aplusb", "../../examples/aplusb/solution.py",
		"--broker", f.srv.URL(0), "--wait", "--json", "--submission-id", "via-submit")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("submit: %v\n%s", err, out)
	}
	var r nojcore.Result
	if err := json.Unmarshal(out, &r); err != nil || r.SubmissionID != "via-submit" || r.Status != "Accepted" || r.Score != 10000 {
		t.Fatalf("submit printed %s (%v)", out, err)
	}
	if f.llen(nojcore.ResultQueue) != 0 {
		t.Fatal("submit left its result in the result list")
	}
}
