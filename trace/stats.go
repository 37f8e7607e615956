package trace

import (
	"cmp"
	"slices"

	"github.com/tether-dev/tether/judge"
)

// Stats summarises a trace: per-function latency, the slowest calls, and
// where the run's time went.
type Stats struct {
	Problem      string           `json:"problem"`
	SubmissionID string           `json:"submission_id"`
	Verdict      string           `json:"verdict,omitempty"`
	WallUs       int64            `json:"wall_us"` // header start to the verdict (or the last event)
	Functions    []FnStats        `json:"functions"`
	Slowest      []CallRecord     `json:"slowest"`
	Time         TimeSplit        `json:"time"`
	Drops        map[string]int64 `json:"drops,omitempty"` // by reason
	Restarts     int              `json:"restarts"`
	LM           *LMStats         `json:"lm,omitempty"`
	Compile      *CompileStats    `json:"compile,omitempty"` // absent: no compile step (an interpreted language, or a trace of an older tether)
	Capped       bool             `json:"capped,omitempty"`  // the trace hit its cap: the numbers cover its head only
}

// CompileStats is the submission's compile step, before the run's clock:
// as the judge reported it (language, the compiler's time_ms and
// memory_kb, cached, outcome), and Us, its wall time as the judge measured
// it (a cache hit's lookup included).
type CompileStats struct {
	judge.CompileStep
	Us int64 `json:"us"`
}

// FnStats is one function (a call's fn, answered by the solution) or
// capability (answered by the evaluator). Latencies are the judge's
// measured durations of the calls answered, failed or timed out; calls
// refused at the door or never answered count in Count and Outcomes only.
type FnStats struct {
	Fn       string         `json:"fn"`
	Side     string         `json:"side"` // who answers it: "solution" (a call) or "evaluator" (a capability)
	Count    int            `json:"count"`
	Errors   int            `json:"errors"` // every outcome but result
	Outcomes map[string]int `json:"outcomes"`
	P50Us    int64          `json:"p50_us"`
	P90Us    int64          `json:"p90_us"`
	P99Us    int64          `json:"p99_us"`
	MaxUs    int64          `json:"max_us"`
	TotalUs  int64          `json:"total_us"`
}

// CallRecord is one call or capability of the trace.
type CallRecord struct {
	ID      string `json:"id"`
	Fn      string `json:"fn"`
	Side    string `json:"side"` // who answers it
	StartUs int64  `json:"start_us"`
	Us      int64  `json:"us"`
	Outcome string `json:"outcome"` // an answer's outcome, or "pending"
}

// TimeSplit is where the run's wall time went, from the evaluator's first
// line to the verdict. Solution: at least one call was open and no
// capability (it includes the relay's hops of those calls). Evaluator: a
// capability was open, or nothing was (the evaluator working between
// calls). JudgeCPUUs is the judge process's CPU time over the run, the
// relay's own cost (in tether serve it includes concurrent runs).
type TimeSplit struct {
	StartupUs   int64 `json:"startup_us"`
	SolutionUs  int64 `json:"solution_us"`
	EvaluatorUs int64 `json:"evaluator_us"`
	JudgeCPUUs  int64 `json:"judge_cpu_us"`
}

// LMStats summarises the LM requests of a run.
type LMStats struct {
	Requests     int   `json:"requests"`
	Errors       int   `json:"errors"`
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	P50Us        int64 `json:"p50_us"`
	MaxUs        int64 `json:"max_us"`
}

// SlowestN is how many calls Stats lists as the slowest.
const SlowestN = 10

type callKey struct{ side, id string }

// Compute builds the Stats of a trace read by ReadAll.
func Compute(h Header, evs []*Event) *Stats {
	st := &Stats{Problem: h.Problem, SubmissionID: h.SubmissionID, Drops: map[string]int64{}}
	open := map[callKey]*CallRecord{}
	var calls []*CallRecord
	fns := map[[2]string]*FnStats{}
	lat := map[[2]string][]int64{}
	var lmLat []int64
	openCalls, openCaps := 0, 0
	var first, last int64 = -1, 0
	account := func(t int64) {
		if first < 0 {
			return
		}
		if dt := t - last; dt > 0 {
			if openCalls > 0 && openCaps == 0 {
				st.Time.SolutionUs += dt
			} else {
				st.Time.EvaluatorUs += dt
			}
		}
		last = t
	}
	for _, ev := range evs {
		switch ev.Ev {
		case KindLine:
			if first < 0 && ev.Side == "evaluator" {
				first, last = ev.T, ev.T
				st.Time.StartupUs = ev.T
			}
		case KindCall:
			account(ev.T)
			c := &CallRecord{ID: ev.ID, Fn: ev.Fn, Side: answerer(ev.Side), StartUs: ev.T, Outcome: "pending"}
			open[callKey{ev.Side, ev.ID}] = c
			calls = append(calls, c)
			if ev.Side == "evaluator" {
				openCalls++
			} else {
				openCaps++
			}
		case KindAnswer:
			account(ev.T)
			key := callKey{ev.Side, ev.ID}
			c := open[key]
			if c == nil { // refused at the door: never opened
				c = &CallRecord{ID: ev.ID, Fn: ev.Fn, Side: answerer(ev.Side), StartUs: ev.T}
				calls = append(calls, c)
			} else {
				delete(open, key)
				if ev.Side == "evaluator" {
					openCalls--
				} else {
					openCaps--
				}
			}
			c.Us, c.Outcome = ev.Us, ev.Outcome
		case KindDrop:
			st.Drops[ev.Reason]++
		case KindRestart:
			st.Restarts = max(st.Restarts, ev.N)
		case KindLM:
			if st.LM == nil {
				st.LM = &LMStats{}
			}
			st.LM.Requests++
			if ev.LM != nil {
				if ev.LM.Error != "" {
					st.LM.Errors++
				}
				st.LM.InputTokens += ev.LM.InputTokens
				st.LM.OutputTokens += ev.LM.OutputTokens
				lmLat = append(lmLat, ev.LM.LatencyUs)
			}
		case KindVerdict:
			account(ev.T)
			st.WallUs = ev.T
			if ev.Result != nil {
				st.Verdict = ev.Result.Status.String()
			}
		case KindCompile:
			if ev.Compile != nil {
				st.Compile = &CompileStats{CompileStep: *ev.Compile, Us: ev.Us}
			}
		case KindEnd:
			st.Capped = ev.Capped
			st.Time.JudgeCPUUs = ev.JudgeCPUUs
		}
		if ev.T > st.WallUs && st.Verdict == "" {
			st.WallUs = ev.T
		}
	}
	for _, c := range calls {
		k := [2]string{c.Side, c.Fn}
		f := fns[k]
		if f == nil {
			f = &FnStats{Fn: c.Fn, Side: c.Side, Outcomes: map[string]int{}}
			fns[k] = f
		}
		f.Count++
		f.Outcomes[c.Outcome]++
		if c.Outcome != "result" {
			f.Errors++
		}
		if c.Outcome != "refused" && c.Outcome != "pending" {
			lat[k] = append(lat[k], c.Us)
			f.TotalUs += c.Us
		}
	}
	for k, f := range fns {
		d := lat[k]
		slices.Sort(d)
		f.P50Us, f.P90Us, f.P99Us = percentile(d, 50), percentile(d, 90), percentile(d, 99)
		if len(d) > 0 {
			f.MaxUs = d[len(d)-1]
		}
		st.Functions = append(st.Functions, *f)
	}
	slices.SortFunc(st.Functions, func(a, b FnStats) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Side, b.Side), cmp.Compare(a.Fn, b.Fn))
	})
	answered := make([]*CallRecord, 0, len(calls))
	for _, c := range calls {
		if c.Outcome != "refused" && c.Outcome != "pending" {
			answered = append(answered, c)
		}
	}
	slices.SortStableFunc(answered, func(a, b *CallRecord) int { return cmp.Compare(b.Us, a.Us) })
	for _, c := range answered[:min(SlowestN, len(answered))] {
		st.Slowest = append(st.Slowest, *c)
	}
	if st.LM != nil {
		slices.Sort(lmLat)
		st.LM.P50Us = percentile(lmLat, 50)
		if len(lmLat) > 0 {
			st.LM.MaxUs = lmLat[len(lmLat)-1]
		}
	}
	return st
}

// answerer is the side that answers a request made by side.
func answerer(side string) string {
	if side == "solution" {
		return "evaluator"
	}
	return "solution"
}

// percentile is the nearest-rank p-th percentile of sorted d (0 if empty).
func percentile(d []int64, p int) int64 {
	if len(d) == 0 {
		return 0
	}
	rank := (p*len(d) + 99) / 100 // ceil(p/100 * n)
	return d[max(rank, 1)-1]
}
