package worker

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tether-dev/tether/dual"
	"github.com/tether-dev/tether/judge"
)

// The metrics of what happens inside runs come from each run's event
// stream (judge.Event): runCounts counts a run's events and adds them to
// the metrics once, at the run's end. A run can make 100k calls; counting
// one is an increment in an array, and the Prometheus counters, shared by
// the slots, are touched a few times per run instead of per call.

// runMetrics are the metrics fed by the runs' events.
type runMetrics struct {
	calls          *prometheus.CounterVec // evaluator calls, by outcome
	capabilities   *prometheus.CounterVec // solution capabilities, by outcome
	dropped        *prometheus.CounterVec // lines and frames dropped, by reason
	exits          *prometheus.CounterVec // processes ended, by side and how
	restarts       prometheus.Counter
	compiles       *prometheus.CounterVec // compile steps, by outcome and cached
	compileSeconds prometheus.Histogram
}

func newRunMetrics() runMetrics {
	rm := runMetrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tether_worker_calls_total",
			Help: "Calls the evaluators made to the solutions, by how they ended (result, error, timeout, rejected, failed, abandoned, refused)."},
			[]string{"outcome"}),
		capabilities: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tether_worker_capabilities_total",
			Help: "Capabilities the solutions asked of the evaluators, by how they ended."}, []string{"outcome"}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tether_worker_frames_dropped_total",
			Help: "Lines and frames the relay dropped, by reason (unknown-id, type, solution-text, log-budget, ...)."}, []string{"reason"}),
		exits: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tether_worker_process_exits_total",
			Help: "Evaluator and solution processes ended, by side and how: exit-zero, exit-nonzero, signal (died on its own), killed (by the judge or a sandbox limit), error (could not be waited for)."},
			[]string{"side", "how"}),
		restarts: prometheus.NewCounter(prometheus.CounterOpts{Name: "tether_worker_solution_restarts_total",
			Help: "Fresh solution processes started after one timed out or was gone."}),
		compiles: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tether_worker_compiles_total",
			Help: "Submission compile steps, by outcome (ok, CompileError) and whether the build cache had the result."}, []string{"outcome", "cached"}),
		compileSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "tether_worker_compile_seconds",
			Help: "Wall time of a submission's compile step, a build cache hit included.", Buckets: prometheus.ExponentialBuckets(0.01, 2, 12)}),
	}
	// Every known label value from the start: a rate over a series that
	// appears at its first count misses that count.
	for _, end := range callEnds {
		rm.calls.WithLabelValues(end)
		rm.capabilities.WithLabelValues(end)
	}
	for _, side := range []dual.Side{dual.Evaluator, dual.Solution} {
		for _, how := range exitHows {
			rm.exits.WithLabelValues(side.String(), how)
		}
	}
	return rm
}

func (rm *runMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{rm.calls, rm.capabilities, rm.dropped, rm.exits, rm.restarts, rm.compiles, rm.compileSeconds}
}

// callEnds are the outcomes' names, as the event stream has them.
var callEnds = func() []string {
	var names []string
	for e := dual.CallEnd(0); e.String() != "?"; e++ {
		names = append(names, e.String())
	}
	return names
}()

// How a process ended (judge.ProcessExit), in a few classes.
const (
	exitZero    = iota // exited with status 0
	exitNonzero        // exited with another status
	exitSignal         // died of a signal of its own making (a crash)
	exitKilled         // killed by the judge (end of run, restart, timeout) or a sandbox limit
	exitError          // the judge could not wait for it
	numExitHows
)

var exitHows = [numExitHows]string{"exit-zero", "exit-nonzero", "signal", "killed", "error"}

func exitHow(e *judge.ProcessExit) int {
	switch {
	case e == nil || e.Error != "":
		return exitError
	case e.KilledByJudge:
		return exitKilled
	case e.Signal != "":
		return exitSignal
	case e.ExitCode != nil && *e.ExitCode == 0:
		return exitZero
	}
	return exitNonzero
}

// runCounts is one run's observer (judge.Options.Observer): it wants only
// the kinds it counts, so the run builds no others for it. The judge tells
// it one event at a time, so its counters need no lock; add hands them to
// the metrics once the run is over.
type runCounts struct {
	m *Metrics
	// By the uint8 value of dual.CallEnd and dual.DropReason: any value
	// has its place (a kind added to dual later too), no bounds to check.
	calls, capabilities [256]int64
	dropped             [256]int64
	exits               [2][numExitHows]int64
	restarts            int64
	compiled            bool // the run had a compile step: its outcome, cached, seconds
	compileOutcome      string
	compileCached       bool
	compileSeconds      float64
}

// runObserver is the observer that feeds m from one run; nil for a nil m.
func (m *Metrics) runObserver() *runCounts {
	if m == nil {
		return nil
	}
	return &runCounts{m: m}
}

// Wants: the kinds counted, no other.
func (c *runCounts) Wants(k judge.EventKind) bool {
	switch k {
	case judge.EventCallClosed, judge.EventDrop, judge.EventSideExit, judge.EventRestart, judge.EventCompile:
		return true
	}
	return false
}

// Observe counts ev.
func (c *runCounts) Observe(ev *judge.Event) {
	switch ev.Kind {
	case judge.EventCallClosed:
		if ev.Side == dual.Evaluator {
			c.calls[ev.Outcome]++
		} else {
			c.capabilities[ev.Outcome]++
		}
	case judge.EventDrop:
		c.dropped[ev.Reason]++
	case judge.EventSideExit:
		c.exits[ev.Side][exitHow(ev.Exit)]++
	case judge.EventRestart:
		c.restarts++
	case judge.EventCompile:
		if ev.Compile != nil {
			c.compiled, c.compileOutcome, c.compileCached, c.compileSeconds = true, ev.Compile.Outcome, ev.Compile.Cached, ev.Took.Seconds()
		}
	}
}

// add adds the run's counts to the metrics; call it once, after the run.
func (c *runCounts) add() {
	if c == nil {
		return
	}
	rm := &c.m.run
	addBy(rm.calls, &c.calls, func(i int) string { return dual.CallEnd(i).String() })
	addBy(rm.capabilities, &c.capabilities, func(i int) string { return dual.CallEnd(i).String() })
	addBy(rm.dropped, &c.dropped, func(i int) string { return dual.DropReason(i).String() })
	for side, hows := range c.exits {
		for how, n := range hows {
			if n > 0 {
				rm.exits.WithLabelValues(dual.Side(side).String(), exitHows[how]).Add(float64(n))
			}
		}
	}
	if c.restarts > 0 {
		rm.restarts.Add(float64(c.restarts))
	}
	if c.compiled {
		rm.compiles.WithLabelValues(c.compileOutcome, strconv.FormatBool(c.compileCached)).Inc()
		rm.compileSeconds.Observe(c.compileSeconds)
	}
}

// addBy adds each non-zero count to vec's series labelled name(index).
func addBy(vec *prometheus.CounterVec, counts *[256]int64, name func(int) string) {
	for i, n := range counts {
		if n > 0 {
			vec.WithLabelValues(name(i)).Add(float64(n))
		}
	}
}
