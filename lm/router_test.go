package lm_test

import (
	"errors"
	"testing"

	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/lm/backend"
)

func intp(i int) *int { return &i }

func TestRouting(t *testing.T) {
	bs := map[string]lm.Backend{"main": &backend.Echo{}, "cheap": &backend.Echo{}, "code": &backend.Echo{}}
	rlmRules, err := lm.NewRouter(lm.RouterConfig{Backends: bs, Default: "main", Other: "cheap"})
	if err != nil {
		t.Fatal(err)
	}
	rlmFallback, err := lm.NewRouter(lm.RouterConfig{Backends: bs, Default: "main", Other: "cheap", Fallback: "code"})
	if err != nil {
		t.Fatal(err)
	}
	custom, err := lm.NewRouter(lm.RouterConfig{Backends: bs, Default: "main", Fallback: "main", Rules: []lm.Rule{
		{Model: "coder", Backend: "code"},
		{MinDepth: intp(2), Backend: "cheap"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		r       *lm.Router
		model   string
		depth   int
		want    string
		wantErr error
	}{
		{"rlm: default at depth 0", rlmRules, "", 0, "main", nil},
		{"rlm: other at depth 1", rlmRules, "", 1, "cheap", nil},
		{"rlm: default at depth 2", rlmRules, "", 2, "main", nil},
		{"rlm: missing depth (-1)", rlmRules, "", -1, "main", nil},
		{"rlm: a named model overrides depth", rlmRules, "code", 1, "code", nil},
		{"rlm: unknown model without fallback", rlmRules, "gpt-9", 0, "", lm.ErrUnknownModel},
		{"rlm: unknown model at depth 1 is still unknown", rlmRules, "gpt-9", 1, "", lm.ErrUnknownModel},
		{"rlm+fallback: unknown model at depth 1 falls back", rlmFallback, "gpt-9", 1, "code", nil},
		{"rlm+fallback: no model at depth 1 goes to other", rlmFallback, "", 1, "cheap", nil},
		{"rlm+fallback: known model at depth 1", rlmFallback, "main", 1, "main", nil},
		{"custom: alias rule", custom, "coder", 0, "code", nil},
		{"custom: depth range", custom, "", 5, "cheap", nil},
		{"custom: below range", custom, "", 1, "main", nil},
		{"custom: unknown model falls back", custom, "gpt-9", 0, "main", nil},
		{"custom: unknown model falls back inside a depth range", custom, "gpt-9", 5, "main", nil},
		{"custom: alias rule inside a depth range", custom, "coder", 5, "code", nil},
	}
	for _, tc := range cases {
		name, _, err := tc.r.Route(tc.model, tc.depth)
		if !errors.Is(err, tc.wantErr) || name != tc.want {
			t.Errorf("%s: Route = %q, %v; want %q, %v", tc.name, name, err, tc.want, tc.wantErr)
		}
	}
	if _, err := lm.NewRouter(lm.RouterConfig{Backends: bs, Default: "nope"}); err == nil {
		t.Error("NewRouter accepted an unknown default")
	}
	if _, err := lm.NewRouter(lm.RouterConfig{Backends: bs, Default: "main", Rules: []lm.Rule{{Backend: "x"}}}); err == nil {
		t.Error("NewRouter accepted a rule to an unknown backend")
	}
}
