package lm

import (
	"maps"
	"slices"
	"strconv"
	"sync"
)

// ModelUsage is rlm's ModelUsageSummary: what one model was asked and answered.
type ModelUsage struct {
	TotalCalls        int64    `json:"total_calls"`
	TotalInputTokens  int64    `json:"total_input_tokens"`
	TotalOutputTokens int64    `json:"total_output_tokens"`
	TotalCost         *float64 `json:"total_cost,omitempty"` // USD, only when the backend prices calls
}

func (u *ModelUsage) add(v ModelUsage) {
	u.TotalCalls += v.TotalCalls
	u.TotalInputTokens += v.TotalInputTokens
	u.TotalOutputTokens += v.TotalOutputTokens
	if v.TotalCost != nil {
		sum := *v.TotalCost
		if u.TotalCost != nil {
			sum += *u.TotalCost
		}
		u.TotalCost = &sum
	}
}

// UsageSummary is rlm's UsageSummary: usage keyed by model name. Its
// total_cost is written only when some model has a cost, as in rlm.
type UsageSummary struct {
	ModelUsageSummaries map[string]ModelUsage `json:"model_usage_summaries"`
}

// TotalCost sums the models' costs; ok is false when none is priced.
func (s UsageSummary) TotalCost() (cost float64, ok bool) {
	for _, u := range s.ModelUsageSummaries {
		if u.TotalCost != nil {
			cost += *u.TotalCost
			ok = true
		}
	}
	return cost, ok
}

// Tokens is the sum of input and output tokens over all models.
func (s UsageSummary) Tokens() int64 {
	var n int64
	for _, u := range s.ModelUsageSummaries {
		n += u.TotalInputTokens + u.TotalOutputTokens
	}
	return n
}

// Calls is the number of calls over all models.
func (s UsageSummary) Calls() int64 {
	var n int64
	for _, u := range s.ModelUsageSummaries {
		n += u.TotalCalls
	}
	return n
}

// MarshalJSON writes an empty summary as {"model_usage_summaries": {}} (never
// null) and adds total_cost when known.
func (s UsageSummary) MarshalJSON() ([]byte, error) { return s.appendJSON(nil), nil }

// appendJSON writes s as encoding/json would write its fields (models in
// the order of their names), without reflection.
func (s UsageSummary) appendJSON(b []byte) []byte {
	b = append(b, `{"model_usage_summaries":{`...)
	var one [1]string
	names := one[:0]
	for name := range s.ModelUsageSummaries {
		names = append(names, name)
	}
	slices.Sort(names)
	for i, name := range names {
		if i > 0 {
			b = append(b, ',')
		}
		u := s.ModelUsageSummaries[name]
		b = appendString(b, name)
		b = append(b, `:{"total_calls":`...)
		b = strconv.AppendInt(b, u.TotalCalls, 10)
		b = append(b, `,"total_input_tokens":`...)
		b = strconv.AppendInt(b, u.TotalInputTokens, 10)
		b = append(b, `,"total_output_tokens":`...)
		b = strconv.AppendInt(b, u.TotalOutputTokens, 10)
		if u.TotalCost != nil {
			b = append(b, `,"total_cost":`...)
			b = appendFloat(b, *u.TotalCost)
		}
		b = append(b, '}')
	}
	b = append(b, '}')
	if cost, ok := s.TotalCost(); ok {
		b = append(b, `,"total_cost":`...)
		b = appendFloat(b, cost)
	}
	return append(b, '}')
}

func singleUsage(model string, u ModelUsage) UsageSummary {
	return UsageSummary{ModelUsageSummaries: map[string]ModelUsage{model: u}}
}

// Meter accumulates usage per model. It is safe for concurrent use.
type Meter struct {
	mu     sync.Mutex
	models map[string]ModelUsage // guarded by mu
}

// Add records one call's usage under model.
func (m *Meter) Add(model string, u ModelUsage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.models == nil {
		m.models = make(map[string]ModelUsage)
	}
	cur := m.models[model]
	cur.add(u)
	m.models[model] = cur
}

// Summary returns a copy of the usage so far; the caller owns it.
func (m *Meter) Summary() UsageSummary {
	m.mu.Lock()
	defer m.mu.Unlock()
	return UsageSummary{ModelUsageSummaries: maps.Clone(m.models)}
}
