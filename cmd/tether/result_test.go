package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/redistest"
	"github.com/tether-dev/tether/worker"
	"github.com/tether-dev/tether/worker/natsq"
)

// tether result ID prints a result the embedded broker kept across its
// restart, with the token of its data dir, in the problem's points; an id
// it does not keep, and a data dir without the token, are told.
func TestResultIsFetchedByIDAfterABrokerRestart(t *testing.T) {
	dir := t.TempDir()
	e, err := natsq.StartEmbedded(dir, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listen := strings.TrimPrefix(e.URL, "nats://")
	ctx := context.Background()
	b, err := natsq.Connect(ctx, natsq.Options{URL: e.URL, Token: e.Token})
	if err != nil {
		e.Close()
		t.Fatal(err)
	}
	_, err = b.JetStream().Publish(ctx, natsq.ResultSubject("kept-1"),
		[]byte(`{"submission_id":"kept-1","status":"PartiallyCorrect","score":3750,"output":"","details":null,"time_ms":12,"memory_kb":3000}`))
	b.Close()
	e.Close()
	if err != nil {
		t.Fatal(err)
	}
	e, err = natsq.StartEmbedded(dir, listen)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()

	out, err := runCLI(t, "result", "kept-1", "--broker", "embedded", "--data-dir", dir, "--listen", listen)
	if err != nil || !strings.Contains(out, "verdict:  PartiallyCorrect\n") || !strings.Contains(out, "score:    37.50\n") {
		t.Fatalf("tether result printed %q, %v", out, err)
	}
	_, err = runCLI(t, "result", "never-queued", "--broker", "embedded", "--data-dir", dir, "--listen", listen)
	if err == nil || !strings.Contains(err.Error(), "no result for never-queued") {
		t.Fatalf("an unknown id: %v", err)
	}
	_, err = runCLI(t, "result", "kept-1", "--broker", "embedded", "--data-dir", t.TempDir(), "--listen", listen)
	if err == nil || !strings.Contains(err.Error(), "token") {
		t.Fatalf("a data dir without the token: %v", err)
	}
}

// tether submit --wait keeps waiting while the embedded broker stops and
// starts again (a worker's SIGTERM and restart) and prints the result
// judged after the restart.
func TestSubmitWaitOutlivesABrokerRestart(t *testing.T) {
	dir := t.TempDir()
	e, err := natsq.StartEmbedded(dir, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listen := strings.TrimPrefix(e.URL, "nats://")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	watch, err := natsq.Connect(ctx, natsq.Options{URL: e.URL, Token: e.Token})
	if err != nil {
		e.Close()
		t.Fatal(err)
	}
	type answer struct {
		out string
		err error
	}
	done := make(chan answer, 1)
	go func() {
		out, err := runCLI(t, "submit", "../../examples/aplusb", "../../examples/aplusb/solution.py", "--wait",
			"--broker", "embedded", "--data-dir", dir, "--listen", listen, "--submission-id", "restarted", "--timeout", "1m")
		done <- answer{out, err}
	}()
	// Restart once the task is queued and the waiter's consumer is there.
	for waiting := false; !waiting; {
		tasks, err1 := watch.JetStream().Stream(ctx, natsq.TaskStream)
		results, err2 := watch.JetStream().Stream(ctx, natsq.ResultStream)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		ti, err1 := tasks.Info(ctx)
		ri, err2 := results.Info(ctx)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		waiting = ti.State.Msgs > 0 && ri.State.Consumers > 0
		if ctx.Err() != nil {
			t.Fatal("submit queued nothing, or never waited")
		}
	}
	watch.Close()
	e.Close()
	e, err = natsq.StartEmbedded(dir, listen)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	w, err := natsq.Open(ctx, natsq.Options{URL: e.URL, Token: e.Token})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var d worker.Delivery
	for d == nil && ctx.Err() == nil {
		if d, err = w.Pull(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if d == nil {
		t.Fatal("the task queued before the restart was lost")
	}
	if err := d.Complete(ctx, []byte(`{"submission_id":"restarted","status":"Accepted","score":10000,"output":"","details":null,"time_ms":5,"memory_kb":100,"rejudge_seq":0}`)); err != nil {
		t.Fatal(err)
	}
	a := <-done
	if a.err != nil || !strings.Contains(a.out, "verdict:  Accepted\n") || !strings.Contains(a.out, "score:    100.00\n") {
		t.Fatalf("submit --wait printed %q, %v", a.out, a.err)
	}
}

// On Redis, tether result reads the newest result of the id from Neuro
// OJ's result list and leaves it there for the core.
func TestResultOnRedisLeavesTheListToTheCore(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client()
	ctx := context.Background()
	for _, r := range []string{
		`{"submission_id":"r1","status":"WrongAnswer","score":0,"output":"","details":null,"time_ms":1,"memory_kb":1}`,
		`{"submission_id":"other","status":"Accepted","score":10000,"output":"","details":null,"time_ms":1,"memory_kb":1}`,
		`{"submission_id":"r1","status":"Accepted","score":10000,"output":"","details":null,"time_ms":1,"memory_kb":1}`,
	} {
		if err := c.LPush(ctx, "results", r).Err(); err != nil {
			t.Fatal(err)
		}
	}
	out, err := runCLI(t, "result", "r1", "--broker", srv.URL(0), "--result-queue", "results")
	if err != nil || !strings.Contains(out, "verdict:  Accepted\n") {
		t.Fatalf("tether result printed %q, %v; want the newest result of r1", out, err)
	}
	if n := c.LLen(ctx, "results").Val(); n != 3 {
		t.Fatalf("the result list has %d items, want the 3 left for the core", n)
	}
	_, err = runCLI(t, "result", "gone", "--broker", srv.URL(0), "--result-queue", "results")
	if err == nil || !strings.Contains(err.Error(), "until Neuro OJ's core takes it") {
		t.Fatalf("an id not in the list: %v", err)
	}
}
