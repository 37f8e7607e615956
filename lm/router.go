package lm

import (
	"fmt"
	"slices"
)

// Rule sends requests that match it to a backend. A rule matches when Model
// equals the requested model ("" matches only a request that names no
// model), and the depth lies in [MinDepth, MaxDepth] (a nil bound is open).
type Rule struct {
	Model    string `json:"model,omitempty"`
	MinDepth *int   `json:"min_depth,omitempty"`
	MaxDepth *int   `json:"max_depth,omitempty"`
	Backend  string `json:"backend"`
}

func (r Rule) matches(model string, depth int) bool {
	if r.Model != model {
		return false
	}
	if r.MinDepth != nil && depth < *r.MinDepth {
		return false
	}
	return r.MaxDepth == nil || depth <= *r.MaxDepth
}

// Router picks the backend of a request. It is immutable after NewRouter and
// safe for concurrent use.
//
// Order: a backend named exactly as the requested model; then, for a
// request that names a model, the first matching rule that names that model,
// else the fallback, else ErrUnknownModel, at every depth (an unknown model
// name is an error unless a fallback is configured); then, for a request
// that names no model, the first matching rule that names none, else the
// default backend. Without explicit rules the rules are rlm's: depth 1 goes
// to the "other" backend when one is configured.
type Router struct {
	backends map[string]Backend
	rules    []Rule
	def      string
	fallback string
}

// RouterConfig configures NewRouter. Backends are keyed by the model name a
// request uses to select them; that name is also the completion's root_model.
type RouterConfig struct {
	Backends map[string]Backend
	Default  string // required
	Other    string // optional: rlm's other_backend_client, used at depth 1
	Rules    []Rule // nil: rlm's rules
	Fallback string // optional: backend for unknown model names; none: they are errors
}

// NewRouter checks that every name in c refers to a backend.
func NewRouter(c RouterConfig) (*Router, error) {
	check := func(what, name string) error {
		if _, ok := c.Backends[name]; !ok {
			return fmt.Errorf("lm: router: %s %q is not a configured backend", what, name)
		}
		return nil
	}
	if err := check("default backend", c.Default); err != nil {
		return nil, err
	}
	rules := slices.Clone(c.Rules)
	if rules == nil && c.Other != "" {
		one := 1
		rules = []Rule{{MinDepth: &one, MaxDepth: &one, Backend: c.Other}}
	}
	for i, r := range rules {
		if err := check(fmt.Sprintf("rules[%d].backend", i), r.Backend); err != nil {
			return nil, err
		}
	}
	if c.Fallback != "" {
		if err := check("fallback", c.Fallback); err != nil {
			return nil, err
		}
	}
	return &Router{backends: c.Backends, rules: rules, def: c.Default, fallback: c.Fallback}, nil
}

// SingleBackend routes every request to b, named name, whatever model it
// asks for (rlm's handler with only a default client).
func SingleBackend(name string, b Backend) *Router {
	return &Router{backends: map[string]Backend{name: b}, def: name, fallback: name}
}

// Route returns the name and backend for a request's model and depth.
func (r *Router) Route(model string, depth int) (string, Backend, error) {
	if b, ok := r.backends[model]; ok && model != "" {
		return model, b, nil
	}
	for _, rule := range r.rules {
		// A rule without a model serves only requests without one, so a
		// named model that nothing serves is unknown whatever the depth.
		if rule.matches(model, depth) {
			return rule.Backend, r.backends[rule.Backend], nil
		}
	}
	if model != "" {
		if r.fallback == "" {
			return "", nil, fmt.Errorf("%w %q", ErrUnknownModel, model)
		}
		return r.fallback, r.backends[r.fallback], nil
	}
	return r.def, r.backends[r.def], nil
}
