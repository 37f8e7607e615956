package lm

import (
	"encoding/json"
	"maps"
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
func (s UsageSummary) MarshalJSON() ([]byte, error) {
	out := struct {
		ModelUsageSummaries map[string]ModelUsage `json:"model_usage_summaries"`
		TotalCost           *float64              `json:"total_cost,omitempty"`
	}{ModelUsageSummaries: s.ModelUsageSummaries}
	if out.ModelUsageSummaries == nil {
		out.ModelUsageSummaries = map[string]ModelUsage{}
	}
	if cost, ok := s.TotalCost(); ok {
		out.TotalCost = &cost
	}
	return json.Marshal(out)
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
