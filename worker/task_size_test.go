package worker

import (
	"context"
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/nojcore"
)

// taskWithCode is a well-formed task whose code is size bytes of Python
// lines (their newlines are escaped in the JSON, as in real tasks).
func taskWithCode(t *testing.T, id string, size int) []byte {
	t.Helper()
	var task map[string]any
	if err := json.Unmarshal(nojcore.MinimalTask(id), &task); err != nil {
		t.Fatal(err)
	}
	line := "print('tether')\n"
	task["code"] = strings.Repeat(line, size/len(line)+1)[:size]
	raw, err := json.Marshal(task)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// A task over MaxTaskBytes goes to the dead letters with a reason that
// names its size, the cap and how to raise it, and is never judged.
func TestOversizedTaskGoesToDeadUnread(t *testing.T) {
	const maxBytes = 1 << 20
	over := taskWithCode(t, "big", maxBytes+1)
	under := taskWithCode(t, "small", maxBytes/2)
	b := &memBroker{}
	var judged []string
	judge := func(_ context.Context, task *Task, _ SlotCPUs) (*Result, error) {
		judged = append(judged, task.SubmissionID)
		return &Result{SubmissionID: task.SubmissionID, Status: "Accepted"}, nil
	}
	w, err := New(Config{Broker: b, Judge: judge, MaxTaskBytes: maxBytes})
	if err != nil {
		t.Fatal(err)
	}
	w.handle(context.Background(), &memDelivery{b: b, raw: over}, SlotCPUs{})
	w.handle(context.Background(), &memDelivery{b: b, raw: under}, SlotCPUs{})
	if len(judged) != 1 || judged[0] != "small" || len(b.completed) != 1 {
		t.Fatalf("judged %v, completed %v: want only the task under the cap", judged, b.completed)
	}
	if len(b.deadReasons) != 1 {
		t.Fatalf("dead reasons %q, want one", b.deadReasons)
	}
	reason := b.deadReasons[0]
	for _, want := range []string{strconv.Itoa(len(over)) + " bytes", strconv.Itoa(maxBytes), "TETHER_MAX_TASK_MB"} {
		if !strings.Contains(reason, want) {
			t.Errorf("dead reason %q does not say %q", reason, want)
		}
	}
	if DefaultMaxTaskBytes != 64<<20 {
		t.Fatalf("DefaultMaxTaskBytes = %d, docs/worker.md says 64 MiB", DefaultMaxTaskBytes)
	}
}

// ParseTask decodes a task once: a task allocates about twice its code
// (the unescaped bytes and the string), not once per decode. Nothing in
// ParseTask depends on the size, so 4 MiB of code shows the ratio a task
// near the 64 MiB cap has (1.95x either way) at a tenth of the time (47 MiB
// took 26 s under -race).
func TestParseTaskDecodesOnce(t *testing.T) {
	const size = 4 << 20
	raw := taskWithCode(t, "fifty", size)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	task, err := ParseTask(raw)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(task.Code) != size {
		t.Fatalf("code is %d bytes, want %d", len(task.Code), size)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("ParseTask of a %d-byte task allocated %d bytes (%.2fx)", len(raw), allocated, float64(allocated)/float64(len(raw)))
	if limit := uint64(len(raw)) * 5 / 2; allocated > limit {
		t.Fatalf("ParseTask of a %d-byte task allocated %d bytes, over %d: the task is decoded more than once", len(raw), allocated, limit)
	}
}
