package judge

import "github.com/tether-dev/tether/internal/testenv"

// scaleTimes stretches p's time limits (the evaluator's time limit, the
// solution's call and ready timeouts and its CPU time cap) by
// testenv.TimeScale, for an emulated machine where Python takes several
// times longer, in CPU time too, to start.
func scaleTimes(p *Problem) *Problem {
	s := testenv.TimeScale()
	if s == 1 {
		return p
	}
	for _, ms := range []*int64{&p.Runtime.Evaluator.TimeLimitMs, &p.Runtime.Solution.CallTimeoutMs, &p.Runtime.Solution.ReadyTimeoutMs, &p.Runtime.Solution.CPUTimeLimitMs} {
		*ms = int64(float64(*ms) * s)
	}
	return p
}
