package worker

import (
	"context"
	"io"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/dual"
	"github.com/tether-dev/tether/internal/nojcore"
	"github.com/tether-dev/tether/judge"
)

// A judged task shows in /metrics by status, with the run histogram and
// the pull wait; /healthz answers ok.
func TestMetricsAfterARun(t *testing.T) {
	b := &memBroker{queue: [][]byte{nojcore.MinimalTask("m1")}}
	judged := make(chan struct{})
	judge := func(ctx context.Context, t *Task, _ SlotCPUs) (*Result, error) {
		defer close(judged)
		return &Result{SubmissionID: t.SubmissionID, Status: "WrongAnswer"}, nil
	}
	m := NewMetrics(1)
	m.CacheEvent("hit", 1234)
	m.FallbackPending(2)
	w, _ := New(Config{Broker: b, Judge: judge, Metrics: m, Drain: time.Minute})
	stop, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(stop, context.Background()) }()
	<-judged
	cancel()
	<-done
	wantLines(t, scrape(t, m),
		`tether_worker_runs_total{status="WrongAnswer"} 1`,
		`tether_worker_run_seconds_count 1`,
		`tether_worker_in_flight 0`,
		`tether_worker_pull_wait_seconds_count 1`,
		`tether_worker_package_cache_events_total{kind="hit"} 1`,
		`tether_worker_package_cache_bytes 1234`,
		`tether_worker_fallback_results_pending 2`,
		`tether_worker_slots 1`,
	)
	if got := get(t, m, "/healthz"); got != "ok\n" {
		t.Fatalf("/healthz = %q", got)
	}
}

// get is what m's handler serves at path.
func get(t *testing.T, m *Metrics, path string) string {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body)
}

// scrape is m's /metrics.
func scrape(t *testing.T, m *Metrics) string { t.Helper(); return get(t, m, "/metrics") }

// wantLines fails t for each of lines that is not a line of the scraped
// body, and then shows the body.
func wantLines(t *testing.T, body string, lines ...string) {
	t.Helper()
	for _, line := range lines {
		if !strings.Contains("\n"+body, "\n"+line+"\n") {
			t.Errorf("/metrics lacks %q", line)
		}
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", body)
	}
}

// Every metric the worker serves is in docs/worker.md's table.
func TestEveryMetricIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/worker.md")
	if err != nil {
		t.Fatal(err)
	}
	// A vector shows in Gather once it has a series: give each one.
	m := NewMetrics(1)
	m.observe("Accepted", time.Second)
	m.CacheEvent("hit", 1)
	counts := m.runObserver()
	counts.Observe(&judge.Event{Event: dual.Event{Kind: judge.EventDrop, Reason: dual.DropType}})
	counts.Observe(&judge.Event{Event: dual.Event{Kind: judge.EventCompile}, Compile: &judge.CompileStep{Outcome: "ok"}})
	counts.add()
	families, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if len(families) != len(m.collectors()) {
		t.Errorf("%d metrics gathered of the %d the worker has", len(families), len(m.collectors()))
	}
	for _, f := range families {
		if !strings.Contains(string(doc), "| `"+f.GetName()) {
			t.Errorf("docs/worker.md's metrics table lacks %s", f.GetName())
		}
	}
}
