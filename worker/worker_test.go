package worker

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tether-dev/tether/internal/nojcore"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestParseTaskNamesTheMissingField(t *testing.T) {
	good := `{"submission_id":"a","problem_id":1,"language":"python","code":"x","rejudge_seq":3,"extra":1,
"runtime_config":{"evaluator":{"image":"i","command":"python3 /workspace/evaluate.py","time_limit_ms":1000,"memory_limit_mb":64},
"solution":{"image":"j","call_timeout_ms":100,"memory_limit_mb":64}}}`
	task, err := ParseTask([]byte(good))
	if err != nil || task.SubmissionID != "a" || task.Seq() != 3 || task.RuntimeConfig.Solution.Image != "j" {
		t.Fatalf("ParseTask = %+v, %v", task, err)
	}
	for field, raw := range map[string]string{
		"runtime_config.solution.call_timeout_ms": strings.Replace(good, `"call_timeout_ms":100,`, "", 1),
		"submission_id":     strings.Replace(good, `"submission_id":"a",`, "", 1),
		"not a JSON object": `[]`,
		"code: want string": strings.Replace(good, `"code":"x"`, `"code":5`, 1),
	} {
		_, err := ParseTask([]byte(raw))
		if !errors.Is(err, ErrBadTask) || !strings.Contains(err.Error(), field) {
			t.Errorf("error %v, want one naming %s", err, field)
		}
	}
}

func TestDivideCPUs(t *testing.T) {
	cpus, err := ParseCPUList("0-3,6")
	if err != nil || !reflect.DeepEqual(cpus, []int{0, 1, 2, 3, 6}) {
		t.Fatalf("ParseCPUList = %v, %v", cpus, err)
	}
	if _, err := ParseCPUList("3-1"); err == nil {
		t.Fatal("a backwards range was accepted")
	}
	got := DivideCPUs([]int{0, 1, 2, 3}, 2)
	want := []SlotCPUs{{[]int{0}, []int{1}}, {[]int{2}, []int{3}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("4 CPUs / 2 slots = %v", got)
	}
	got = DivideCPUs([]int{0, 1}, 4)
	if !reflect.DeepEqual(got[2], SlotCPUs{[]int{0}, []int{0}}) || !reflect.DeepEqual(got[3], SlotCPUs{[]int{1}, []int{1}}) {
		t.Fatalf("2 CPUs / 4 slots = %v", got)
	}
}

func TestTailUTF8(t *testing.T) {
	s := strings.Repeat("é", 10) // 2 bytes each
	if got := tailUTF8(s, 5); got != "éé" {
		t.Fatalf("tailUTF8 = %q", got)
	}
}

// memBroker is an in-memory queue for the worker's own logic.
type memBroker struct {
	mu                  sync.Mutex
	queue               [][]byte
	completed, returned []string
	dead, deadReasons   []string
	held, maxHeld       int
}

func (b *memBroker) Pull(ctx context.Context) (Delivery, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.queue) == 0 {
		return nil, nil
	}
	raw := b.queue[0]
	b.queue = b.queue[1:]
	b.held++
	b.maxHeld = max(b.maxHeld, b.held)
	return &memDelivery{b: b, raw: raw}, nil
}

func (b *memBroker) Close() error { return nil }

type memDelivery struct {
	b   *memBroker
	raw []byte
}

func (d *memDelivery) Raw() []byte                      { return d.raw }
func (d *memDelivery) Redelivered() int                 { return 0 }
func (d *memDelivery) InProgress(context.Context) error { return nil }
func (d *memDelivery) settle(list *[]string) {
	d.b.mu.Lock()
	defer d.b.mu.Unlock()
	d.b.held--
	t, _ := ParseTask(d.raw)
	id := string(d.raw)
	if t != nil {
		id = t.SubmissionID
	}
	*list = append(*list, id)
}
func (d *memDelivery) Complete(context.Context, []byte) error { d.settle(&d.b.completed); return nil }
func (d *memDelivery) Return(context.Context) error           { d.settle(&d.b.returned); return nil }
func (d *memDelivery) Dead(_ context.Context, reason string) error {
	d.b.mu.Lock()
	d.b.deadReasons = append(d.b.deadReasons, reason)
	d.b.mu.Unlock()
	d.settle(&d.b.dead)
	return nil
}

// The stop ends pulling; the two running tasks get the drain: one finishes
// in it, the other is still running when it ends and goes back; the tasks
// never started stay queued. The worker never holds more than its slots.
func TestDrainFinishesWhatItCanAndGivesBackTheRest(t *testing.T) {
	b := &memBroker{}
	for i := range 5 {
		b.queue = append(b.queue, nojcore.MinimalTask(fmt.Sprint(i)))
	}
	started := make(chan string, 5)
	finishFast := make(chan struct{})
	judge := func(ctx context.Context, t *Task, _ SlotCPUs) (*Result, error) {
		started <- t.SubmissionID
		if t.SubmissionID == "0" {
			<-finishFast
			return &Result{SubmissionID: t.SubmissionID, Status: "Accepted"}, nil
		}
		<-ctx.Done() // a run the drain cuts short
		return nil, ctx.Err()
	}
	w, err := New(Config{Broker: b, Judge: judge, Slots: make([]SlotCPUs, 2), Drain: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	stop, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(stop, context.Background()) }()
	<-started
	<-started
	cancel()
	close(finishFast)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(b.completed, []string{"0"}) || !reflect.DeepEqual(b.returned, []string{"1"}) {
		t.Fatalf("completed %v returned %v", b.completed, b.returned)
	}
	if len(b.queue) != 3 || b.maxHeld > 2 || b.held != 0 {
		t.Fatalf("queue %d, held at most %d, held at the end %d", len(b.queue), b.maxHeld, b.held)
	}
}

// A second signal (kill) cuts the drain short: nothing is left unsettled.
func TestKillGivesBackAtOnce(t *testing.T) {
	b := &memBroker{queue: [][]byte{nojcore.MinimalTask("a")}}
	started := make(chan struct{})
	judge := func(ctx context.Context, _ *Task, _ SlotCPUs) (*Result, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	w, _ := New(Config{Broker: b, Judge: judge, Drain: time.Hour})
	stop, cancelStop := context.WithCancel(context.Background())
	kill, cancelKill := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(stop, kill) }()
	<-started
	cancelStop()
	cancelKill()
	<-done
	if !reflect.DeepEqual(b.returned, []string{"a"}) {
		t.Fatalf("returned %v", b.returned)
	}
}
