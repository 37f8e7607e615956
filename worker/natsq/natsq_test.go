package natsq_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/goleak"

	"github.com/tether-dev/tether/internal/nojcore"
	"github.com/tether-dev/tether/worker"
	"github.com/tether-dev/tether/worker/natsq"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func embedded(t *testing.T) *natsq.Embedded {
	t.Helper()
	e, err := natsq.StartEmbedded(t.TempDir(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// enqueue queues nojcore.MinimalTask(id) as rejudge seq of id.
func enqueue(t *testing.T, b *natsq.Broker, id string, seq int64) {
	t.Helper()
	if err := b.Enqueue(context.Background(), nojcore.MinimalTask(id), id, seq); err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T, e *natsq.Embedded, ackWait time.Duration) *natsq.Broker {
	t.Helper()
	b, err := natsq.Open(context.Background(), natsq.Options{URL: e.URL, Token: e.Token, AckWait: ackWait, Poll: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// withTask starts an embedded server, opens a broker on it with ackWait
// and queues task id (enqueue).
func withTask(t *testing.T, ackWait time.Duration, id string) (*natsq.Embedded, *natsq.Broker) {
	t.Helper()
	e := embedded(t)
	b := open(t, e, ackWait)
	enqueue(t, b, id, 0)
	return e, b
}

// pull polls until a task comes or the deadline passes.
func pull(t *testing.T, b *natsq.Broker, within time.Duration) worker.Delivery {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		d, err := b.Pull(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if d != nil {
			return d
		}
	}
	return nil
}

// streamMsgs is how many messages the stream holds now.
func streamMsgs(t *testing.T, e *natsq.Embedded, stream string) uint64 {
	t.Helper()
	return streamInfo(t, jsOf(t, e), stream).State.Msgs
}

// The embedded server refuses a client without its token.
func TestEmbeddedNeedsTheToken(t *testing.T) {
	e := embedded(t)
	if _, err := natsq.Connect(context.Background(), natsq.Options{URL: e.URL}); err == nil {
		t.Fatal("connected without the token")
	}
}

func TestDuplicateMsgIDIsDropped(t *testing.T) {
	e, b := withTask(t, time.Second, "dup")
	enqueue(t, b, "dup", 0)
	enqueue(t, b, "dup", 1) // a rejudge is another task
	if n := streamMsgs(t, e, natsq.TaskStream); n != 2 {
		t.Fatalf("%d tasks stored, want 2 (the duplicate dropped)", n)
	}
}

// A worker that dies holding a task (no ack, no heartbeat) loses it to
// another worker after AckWait.
func TestRedeliveryAfterAWorkerDies(t *testing.T) {
	e, first := withTask(t, 500*time.Millisecond, "k")
	if d := pull(t, first, 10*time.Second); d == nil {
		t.Fatal("no task")
	}
	first.Close() // dies without settling
	second := open(t, e, 500*time.Millisecond)
	d := pull(t, second, 20*time.Second)
	if d == nil || d.Redelivered() != 1 {
		t.Fatalf("redelivery %v", d)
	}
	if err := d.Complete(context.Background(), []byte(`{"submission_id":"k","status":"Accepted"}`)); err != nil {
		t.Fatal(err)
	}
	if n := streamMsgs(t, e, natsq.TaskStream); n != 0 {
		t.Fatalf("%d tasks left after the ack", n)
	}
}

// Past MaxDeliver a task goes to the dead-letter stream with the reason.
func TestMaxDeliverGoesToDeadLetter(t *testing.T) {
	e, b := withTask(t, 300*time.Millisecond, "m")
	for i := range natsq.DefaultMaxDeliver {
		if d := pull(t, b, 20*time.Second); d == nil {
			t.Fatalf("delivery %d did not come", i+1)
		}
		// abandoned: AckWait redelivers it
	}
	if d := pull(t, b, 3*time.Second); d != nil {
		t.Fatalf("delivered a %dth time", natsq.DefaultMaxDeliver+1)
	}
	js := jsOf(t, e)
	s, _ := js.Stream(context.Background(), natsq.DeadStream)
	msg, err := s.GetLastMsgForSubject(context.Background(), natsq.DeadSubject)
	if err != nil {
		t.Fatal(err)
	}
	if string(msg.Data) != string(nojcore.MinimalTask("m")) || !strings.Contains(msg.Header.Get(natsq.ReasonHeader), "delivered 3 times") {
		t.Fatalf("dead letter %q reason %q", msg.Data, msg.Header.Get(natsq.ReasonHeader))
	}
	if n := streamMsgs(t, e, natsq.TaskStream); n != 0 {
		t.Fatalf("%d tasks left", n)
	}
}

// A run longer than AckWait is kept by its in-progress heartbeats: no other
// worker gets it, and one result is stored.
func TestLongRunIsNotRedelivered(t *testing.T) {
	const ackWait = 400 * time.Millisecond
	e, b := withTask(t, ackWait, "long")
	other := open(t, e, ackWait)
	ctx := context.Background()
	var runs atomic.Int32
	running := make(chan struct{})
	finish := make(chan struct{})
	judge := func(ctx context.Context, t *worker.Task, _ worker.SlotCPUs) (*worker.Result, error) {
		runs.Add(1)
		close(running)
		<-finish
		return &worker.Result{SubmissionID: t.SubmissionID, Status: "Accepted", Details: json.RawMessage("null")}, nil
	}
	w, _ := worker.New(worker.Config{Broker: b, Judge: judge, Heartbeat: ackWait / 4})
	stop, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- w.Run(stop, context.Background()) }()
	<-running
	// Another worker polls for five AckWaits while the run goes on.
	deadline := time.Now().Add(5 * ackWait)
	for time.Now().Before(deadline) {
		if d, err := other.Pull(ctx); err != nil || d != nil {
			t.Fatalf("the running task was handed out again: %v %v", d, err)
		}
	}
	close(finish)
	res, err := b.WaitResult(ctx, "long", 0)
	if err != nil || !strings.Contains(string(res), "Accepted") {
		t.Fatalf("result %s, %v", res, err)
	}
	cancel()
	<-done
	if runs.Load() != 1 {
		t.Fatalf("%d runs", runs.Load())
	}
}

func jsOf(t *testing.T, e *natsq.Embedded) jetstream.JetStream {
	t.Helper()
	b, err := natsq.Connect(context.Background(), natsq.Options{URL: e.URL, Token: e.Token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b.JetStream()
}

// No two submission ids share a result subject, and every subject is one
// valid NATS token under ResultPrefix: ids of every byte, plain ids,
// the hex form of other ids (x612e62 is "a.b" encoded), and the prefix
// letter itself.
func TestResultSubjectIsInjective(t *testing.T) {
	ids := []string{"", "x", "X", "xx", "x612e62", "a.b", "a", "-", "_", "x-1", "abc", "x00",
		strings.Repeat("a", 128), strings.Repeat("a", 129), "x" + strings.Repeat("a", 127)}
	for c := 0; c < 256; c++ {
		ids = append(ids, string([]byte{byte(c)}), "a"+string([]byte{byte(c)}), "x"+string([]byte{byte(c)}))
	}
	for _, id := range append([]string(nil), ids...) {
		// The subject token of each id, taken as an id in its turn.
		ids = append(ids, strings.TrimPrefix(natsq.ResultSubject(id), natsq.ResultPrefix))
	}
	seen := map[string]string{}
	for _, id := range ids {
		subject := natsq.ResultSubject(id)
		token, ok := strings.CutPrefix(subject, natsq.ResultPrefix)
		if !ok || token == "" || strings.ContainsAny(token, ".*> \t\r\n") {
			t.Errorf("id %q: subject %q is not one token under %s", id, subject, natsq.ResultPrefix)
		}
		if other, dup := seen[subject]; dup && other != id {
			t.Errorf("ids %q and %q share the subject %q", other, id, subject)
		}
		seen[subject] = id
	}
}

// streamInfo is the stream's info as the server has it now.
func streamInfo(t *testing.T, js jetstream.JetStream, name string) *jetstream.StreamInfo {
	t.Helper()
	s, err := js.Stream(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// publishResults publishes bodies on the result subject of id, in order.
func publishResults(t *testing.T, js jetstream.JetStream, id string, bodies ...string) {
	t.Helper()
	for _, body := range bodies {
		if _, err := js.Publish(context.Background(), natsq.ResultSubject(id), []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
}

// A waiter takes only its own submission's result: a message on its
// subject with another submission_id is skipped.
func TestWaitResultChecksTheSubmissionID(t *testing.T) {
	e := embedded(t)
	b := open(t, e, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	publishResults(t, jsOf(t, e), "mine", `{"submission_id":"other","status":"Accepted"}`, `not json`, `{"status":"Accepted"}`, `{"submission_id":"mine","status":"WrongAnswer"}`)
	res, err := b.WaitResult(ctx, "mine", 0)
	if err != nil || string(res) != `{"submission_id":"mine","status":"WrongAnswer"}` {
		t.Fatalf("result %s, %v", res, err)
	}
}

// restart stops the embedded server e and starts it again on its data dir
// and port, as SIGTERM and a new tether worker would.
func restart(t *testing.T, e *natsq.Embedded, dataDir string) *natsq.Embedded {
	t.Helper()
	e.Close()
	again, err := natsq.StartEmbedded(dataDir, strings.TrimPrefix(e.URL, "nats://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(again.Close)
	return again
}

// A waiter outlives a broker restart: tether submit --wait keeps waiting
// while the embedded broker stops and starts again, and the result judged
// after the restart reaches it; the result can be fetched by id after yet
// another restart.
func TestWaitResultSurvivesABrokerRestart(t *testing.T) {
	dir := t.TempDir()
	e, err := natsq.StartEmbedded(dir, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	submitter, err := natsq.Connect(ctx, natsq.Options{URL: e.URL, Token: e.Token})
	if err != nil {
		t.Fatal(err)
	}
	defer submitter.Close()
	enqueue(t, submitter, "survivor", 2)
	type answer struct {
		res []byte
		err error
	}
	got := make(chan answer, 1)
	go func() {
		res, err := submitter.WaitResult(ctx, "survivor", 2)
		got <- answer{res, err}
	}()
	// The waiter's consumer exists before the broker goes away.
	js := submitter.JetStream()
	for {
		info := streamInfo(t, js, natsq.ResultStream)
		if info.State.Consumers > 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the waiter made no consumer")
		}
	}
	e = restart(t, e, dir)
	w := open(t, e, time.Minute)
	d := pull(t, w, 20*time.Second)
	if d == nil {
		t.Fatal("the task queued before the restart was not kept")
	}
	want := `{"submission_id":"survivor","status":"Accepted","score":10000,"rejudge_seq":2}`
	if err := d.Complete(ctx, []byte(want)); err != nil {
		t.Fatal(err)
	}
	a := <-got
	if a.err != nil || string(a.res) != want {
		t.Fatalf("the waiter got %s, %v; want the result judged after the restart", a.res, a.err)
	}
	e = restart(t, e, dir)
	later, err := natsq.Connect(ctx, natsq.Options{URL: e.URL, Token: e.Token})
	if err != nil {
		t.Fatal(err)
	}
	defer later.Close()
	res, err := later.FetchResult(ctx, "survivor")
	if err != nil || string(res) != want {
		t.Fatalf("fetched %s, %v after a restart; want the kept result", res, err)
	}
	if _, err := later.FetchResult(ctx, "never-submitted"); !errors.Is(err, natsq.ErrNoResult) {
		t.Fatalf("an unknown id gave %v, want ErrNoResult", err)
	}
}

// A waiter for one rejudge seq skips the kept result of an earlier one.
func TestWaitResultTakesItsRejudgeSeq(t *testing.T) {
	e := embedded(t)
	b := open(t, e, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	publishResults(t, jsOf(t, e), "again", `{"submission_id":"again","status":"WrongAnswer","rejudge_seq":0}`, `{"submission_id":"again","status":"Accepted","rejudge_seq":1}`)
	res, err := b.WaitResult(ctx, "again", 1)
	if err != nil || !strings.Contains(string(res), "Accepted") {
		t.Fatalf("result %s, %v; want rejudge 1's", res, err)
	}
}

// A result stream of an earlier tether (work-queue retention, which
// JetStream cannot change in place) becomes the kept one at the first
// connection, and the results it held can still be fetched.
func TestWorkQueueResultStreamIsMigrated(t *testing.T) {
	e := embedded(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	nc, err := nats.Connect(e.URL, nats.Token(e.Token))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: natsq.ResultStream, Subjects: []string{natsq.ResultPrefix + "*"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage}); err != nil {
		t.Fatal(err)
	}
	publishResults(t, js, "old", `{"submission_id":"old","status":"Accepted"}`)
	b := open(t, e, time.Minute)
	info := streamInfo(t, js, natsq.ResultStream)
	if info.Config.Retention != jetstream.LimitsPolicy || info.Config.MaxAge != natsq.ResultRetention {
		t.Fatalf("retention %v, max age %v after the migration", info.Config.Retention, info.Config.MaxAge)
	}
	if res, err := b.FetchResult(ctx, "old"); err != nil || string(res) != `{"submission_id":"old","status":"Accepted"}` {
		t.Fatalf("the result kept before the migration: %s, %v", res, err)
	}
}
