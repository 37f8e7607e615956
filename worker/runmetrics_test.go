package worker

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/tether-dev/tether/dual"
	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/lang"
)

// forgingSolution answers add but forges an answer to no call on its first
// call (the relay drops it: unknown-id) and raises on the third (0, 0):
// aplusb's evaluator then ends the run as RuntimeError.
const forgingSolution = `from tether_sdk.solution import _runtime

def add(a, b):
    if a == 1:
        _runtime.writer.write_line(b'{"type":"result","id":"forged","value":0}\n')
    if a == 0:
        raise ValueError("no zeros")
    return a + b
`

// A task the worker judges feeds /metrics from the run's events: the calls
// the evaluator made by how they ended, the forged frame dropped, how each
// side's process ended; each matches the run's own result.
func TestMetricsCountTheEventsOfAJudgedRun(t *testing.T) {
	j := aplusbJudger(t)
	m := NewMetrics(1)
	j.Metrics = m
	var res *judge.Result
	j.Observe = func(r *judge.Result) { res = r }
	judged := make(chan struct{})
	judgeTask := func(ctx context.Context, t *Task, cpus SlotCPUs) (*Result, error) {
		defer close(judged)
		return j.Judge(ctx, t, cpus)
	}
	b := &memBroker{queue: [][]byte{aplusbTask(t, forgingSolution)}}
	w, _ := New(Config{Broker: b, Judge: judgeTask, Metrics: m})
	stop, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(stop, context.Background()) }()
	<-judged
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if res == nil || res.Status != judge.RuntimeError || res.Calls.Count != 3 || !maps.Equal(res.Dropped, map[string]int{"unknown-id": 1}) {
		t.Fatalf("the run went otherwise than planned: %+v", res)
	}
	want := []string{
		`tether_worker_runs_total{status="RuntimeError"} 1`,
		`tether_worker_calls_total{outcome="result"} 2`,
		`tether_worker_calls_total{outcome="error"} 1`,
		`tether_worker_calls_total{outcome="timeout"} 0`,
		`tether_worker_capabilities_total{outcome="result"} 0`,
		`tether_worker_frames_dropped_total{reason="unknown-id"} 1`,
		`tether_worker_solution_restarts_total 0`,
	}
	for side, exit := range map[string]*judge.ProcessExit{"evaluator": res.Exit.Evaluator, "solution": res.Exit.Solution} {
		want = append(want, fmt.Sprintf(`tether_worker_process_exits_total{how=%q,side=%q} 1`, exitHows[exitHow(exit)], side))
	}
	wantLines(t, scrape(t, m), want...)
}

// Each kind counted lands in its series, with the names the event stream
// has; the observer wants only those kinds, so a run builds no others
// (no progress copies, no lines).
func TestRunObserverCountsByOutcomeReasonAndSide(t *testing.T) {
	m := NewMetrics(1)
	for _, k := range []judge.EventKind{judge.EventLine, judge.EventProgress, judge.EventCallOpened, judge.EventOutput, judge.EventLog, judge.EventVerdict} {
		if dual.Wants[judge.Event](m.runObserver(), k) {
			t.Errorf("the run observer wants %v events, which it does not count", k)
		}
	}
	zero, one := 0, 1
	events := []judge.Event{
		{Event: dual.Event{Kind: judge.EventCompile, Took: 1500 * time.Millisecond}, Compile: &judge.CompileStep{Outcome: "ok", Stats: lang.Stats{Cached: true}}},
		{Event: dual.Event{Kind: judge.EventCallClosed, Side: dual.Evaluator, Outcome: dual.EndResult}},
		{Event: dual.Event{Kind: judge.EventCallClosed, Side: dual.Evaluator, Outcome: dual.EndResult}},
		{Event: dual.Event{Kind: judge.EventCallClosed, Side: dual.Evaluator, Outcome: dual.EndTimeout}},
		{Event: dual.Event{Kind: judge.EventCallClosed, Side: dual.Solution, Outcome: dual.EndTimeout}},
		{Event: dual.Event{Kind: judge.EventCallClosed, Side: dual.Solution, Outcome: dual.EndRefused}},
		{Event: dual.Event{Kind: judge.EventDrop, Side: dual.Solution, Reason: dual.DropSolutionText}},
		{Event: dual.Event{Kind: judge.EventDrop, Side: dual.Solution, Reason: dual.DropLogBudget}},
		{Event: dual.Event{Kind: judge.EventDrop, Side: dual.Solution, Reason: dual.DropLogBudget}},
		{Event: dual.Event{Kind: judge.EventSideExit, Side: dual.Solution}, Exit: &judge.ProcessExit{Signal: "SIGKILL", KilledByJudge: true}},
		{Event: dual.Event{Kind: judge.EventRestart, Side: dual.Solution, Restarts: 1}},
		{Event: dual.Event{Kind: judge.EventSideExit, Side: dual.Solution}, Exit: &judge.ProcessExit{Signal: "SIGSEGV"}},
		{Event: dual.Event{Kind: judge.EventSideExit, Side: dual.Evaluator}, Exit: &judge.ProcessExit{ExitCode: &one}},
	}
	for range 2 { // two runs: their counts add up
		obs := m.runObserver()
		for i := range events {
			obs.Observe(&events[i])
		}
		obs.add()
	}
	counts := m.runObserver()
	counts.Observe(&judge.Event{Event: dual.Event{Kind: judge.EventSideExit, Side: dual.Evaluator}, Exit: &judge.ProcessExit{ExitCode: &zero}})
	counts.Observe(&judge.Event{Event: dual.Event{Kind: judge.EventCompile}, Compile: &judge.CompileStep{Outcome: judge.CompileError.String()}})
	counts.add()
	wantLines(t, scrape(t, m),
		`tether_worker_calls_total{outcome="result"} 4`,
		`tether_worker_calls_total{outcome="timeout"} 2`,
		`tether_worker_calls_total{outcome="refused"} 0`,
		`tether_worker_capabilities_total{outcome="timeout"} 2`,
		`tether_worker_capabilities_total{outcome="refused"} 2`,
		`tether_worker_frames_dropped_total{reason="solution-text"} 2`,
		`tether_worker_frames_dropped_total{reason="log-budget"} 4`,
		`tether_worker_process_exits_total{how="killed",side="solution"} 2`,
		`tether_worker_process_exits_total{how="signal",side="solution"} 2`,
		`tether_worker_process_exits_total{how="exit-nonzero",side="evaluator"} 2`,
		`tether_worker_process_exits_total{how="exit-zero",side="evaluator"} 1`,
		`tether_worker_process_exits_total{how="error",side="evaluator"} 0`,
		`tether_worker_solution_restarts_total 2`,
		`tether_worker_compiles_total{cached="true",outcome="ok"} 2`,
		`tether_worker_compiles_total{cached="false",outcome="CompileError"} 1`,
		`tether_worker_compile_seconds_count 3`,
		`tether_worker_compile_seconds_sum 3`,
	)
}
