package trace

import (
	"fmt"
	"testing"

	"github.com/tether-dev/tether/judge"
)

func TestStats(t *testing.T) {
	evs := []*Event{{T: 100, Ev: KindLine, Side: "evaluator"}}
	// 100 calls of f taking 1..100 µs, one after another from t=1000
	now := int64(1000)
	for i := 1; i <= 100; i++ {
		id := fmt.Sprint("f", i)
		evs = append(evs, &Event{T: now, Ev: KindCall, Side: "evaluator", ID: id, Fn: "f"},
			&Event{T: now + int64(i), Ev: KindAnswer, Side: "evaluator", ID: id, Fn: "f", Outcome: "result", Us: int64(i)})
		now += int64(i) + 10
	}
	// g: one error, one timeout during which the solution calls a capability for 50 µs, one refused, one pending
	evs = append(evs,
		&Event{T: now, Ev: KindCall, Side: "evaluator", ID: "g1", Fn: "g"},
		&Event{T: now + 5, Ev: KindAnswer, Side: "evaluator", ID: "g1", Fn: "g", Outcome: "error", Us: 5},
		&Event{T: now + 10, Ev: KindCall, Side: "evaluator", ID: "g2", Fn: "g"},
		&Event{T: now + 20, Ev: KindCall, Side: "solution", ID: "k", Fn: "cap"},
		&Event{T: now + 70, Ev: KindAnswer, Side: "solution", ID: "k", Fn: "cap", Outcome: "result", Us: 50},
		&Event{T: now + 1010, Ev: KindAnswer, Side: "evaluator", ID: "g2", Fn: "g", Outcome: "timeout", Us: 1000},
		&Event{T: now + 1010, Ev: KindAnswer, Side: "evaluator", ID: "g2", Fn: "g", Outcome: "refused"},
		&Event{T: now + 1020, Ev: KindCall, Side: "evaluator", ID: "g3", Fn: "g"},
		&Event{T: now + 1030, Ev: KindDrop, Reason: "unknown-id"},
		&Event{T: now + 1040, Ev: KindRestart, N: 1},
		&Event{T: now + 1100, Ev: KindLM, LM: &judge.LMRequest{LatencyUs: 7, InputTokens: 2, OutputTokens: 3, Error: "budget"}},
		&Event{T: now + 2000, Ev: KindVerdict, Result: &judge.Result{Status: judge.WrongAnswer}},
		&Event{T: now + 2001, Ev: KindEnd, JudgeCPUUs: 42},
	)
	st := Compute(Header{Problem: "p"}, evs)
	f, g, c := st.Functions[0], st.Functions[1], st.Functions[2]
	if f.Fn != "f" || f.Count != 100 || f.Errors != 0 || f.P50Us != 50 || f.P90Us != 90 || f.P99Us != 99 || f.MaxUs != 100 {
		t.Errorf("f %+v", f)
	}
	if g.Fn != "g" || g.Count != 4 || g.Errors != 4 || g.Outcomes["error"] != 1 || g.Outcomes["timeout"] != 1 ||
		g.Outcomes["refused"] != 1 || g.Outcomes["pending"] != 1 || g.MaxUs != 1000 || g.P50Us != 5 {
		t.Errorf("g %+v", g)
	}
	if c.Fn != "cap" || c.Side != "evaluator" || c.Count != 1 || c.MaxUs != 50 {
		t.Errorf("capability %+v", c)
	}
	if len(st.Slowest) != SlowestN || st.Slowest[0].ID != "g2" || st.Slowest[1].ID != "f100" {
		t.Errorf("slowest %+v", st.Slowest)
	}
	// solution: the 100 f calls (5050 µs) + g1 (5) + g2 without its capability (1000 - 50) + g3 (to the verdict: 980)
	if st.Time.StartupUs != 100 || st.Time.SolutionUs != 5050+5+950+980 || st.Time.JudgeCPUUs != 42 ||
		st.Time.SolutionUs+st.Time.EvaluatorUs != st.WallUs-100 {
		t.Errorf("time %+v, wall %d", st.Time, st.WallUs)
	}
	if st.Verdict != "WrongAnswer" || st.Restarts != 1 || st.Drops["unknown-id"] != 1 ||
		st.LM == nil || st.LM.Requests != 1 || st.LM.Errors != 1 || st.LM.OutputTokens != 3 || st.LM.MaxUs != 7 {
		t.Errorf("stats %+v lm %+v", st, st.LM)
	}
}
