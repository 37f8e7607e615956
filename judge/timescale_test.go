package judge

import "github.com/tether-dev/tether/internal/testenv"

// scaleTimes stretches p's wall-clock limits (the evaluator's time limit,
// the solution's call and ready timeouts) by testenv.TimeScale, for an
// emulated machine where Python starts several times slower. CPU time
// limits stay: the tests that reach them spin until they do.
func scaleTimes(p *Problem) *Problem {
	s := testenv.TimeScale()
	if s == 1 {
		return p
	}
	for _, ms := range []*int64{&p.Runtime.Evaluator.TimeLimitMs, &p.Runtime.Solution.CallTimeoutMs, &p.Runtime.Solution.ReadyTimeoutMs} {
		*ms = int64(float64(*ms) * s)
	}
	return p
}
