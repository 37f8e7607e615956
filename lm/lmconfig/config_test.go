package lmconfig_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/lm/lmconfig"
)

func TestParseAndBuild(t *testing.T) {
	data := `{
	  "backends": {
	    "big": {"type": "openai", "base_url": "http://127.0.0.1:1/v1", "api_key_env": "TEST_KEY", "retries": 2, "timeout": "5s"},
	    "echo": {"type": "echo", "delay": "1ms"}
	  },
	  "default": "big", "other": "echo",
	  "max_in_flight": 4, "read_timeout": "2s",
	  "budget": {"calls": 10}
	}`
	c, err := lmconfig.Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Router(func(string) string { return "" }); err == nil {
		t.Error("Router built an openai backend whose key variable is unset")
	}
	r, err := c.Router(func(k string) string { return map[string]string{"TEST_KEY": "sk"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	if name, _, _ := r.Route("", 1); name != "echo" {
		t.Errorf("depth 1 routed to %q, want the other backend", name)
	}
	for _, depth := range []int{-1, 0, 1, 2} {
		if _, _, err := r.Route("nope", depth); !errors.Is(err, lm.ErrUnknownModel) {
			t.Errorf("unknown model at depth %d: %v", depth, err)
		}
	}
	o := c.Options()
	if o.MaxInFlight != 4 || o.ReadTimeout != 2*time.Second || o.Budget.Calls != 10 {
		t.Errorf("options = %+v", o)
	}
}

func TestParseErrors(t *testing.T) {
	for name, data := range map[string]string{
		"not JSON":        `{`,
		"unknown field":   `{"backends": {"e": {"type": "echo"}}, "colour": 1}`,
		"no backends":     `{"default": "x"}`,
		"unknown type":    `{"backends": {"e": {"type": "magic"}}}`,
		"no base_url":     `{"backends": {"o": {"type": "openai"}}}`,
		"bad duration":    `{"backends": {"e": {"type": "echo", "delay": "soon"}}}`,
		"two, no default": `{"backends": {"a": {"type": "echo"}, "b": {"type": "echo"}}}`,
		"negative budget": `{"backends": {"e": {"type": "echo"}}, "budget": {"calls": -1}}`,
	} {
		if _, err := lmconfig.Parse([]byte(data)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestLoadEchoServes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lm.json")
	os.WriteFile(path, []byte(`{"backends": {"echo": {"type": "echo"}}}`), 0o600)
	c, err := lmconfig.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Router(nil)
	if err != nil {
		t.Fatal(err)
	}
	name, b, err := r.Route("", 0)
	if err != nil || name != "echo" {
		t.Fatalf("single backend serves %q, %v", name, err)
	}
	msgs, _ := lm.ParsePrompt([]byte(`"hi"`))
	if rep, err := b.Complete(context.Background(), lm.Call{Messages: msgs}); err != nil || rep.Text != "hi" {
		t.Errorf("echo = %+v, %v", rep, err)
	}
	if _, err := lmconfig.Load(filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// A scripted backend answers its fixed replies in turn.
func TestEchoFixedReplies(t *testing.T) {
	c, err := lmconfig.Parse([]byte(`{"backends": {"script": {"type": "echo", "replies": ["yes", "no"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Router(nil)
	if err != nil {
		t.Fatal(err)
	}
	_, b, _ := r.Route("", 0)
	msgs, _ := lm.ParsePrompt([]byte(`"what now"`))
	var got []string
	for range 3 {
		rep, err := b.Complete(context.Background(), lm.Call{Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rep.Text)
		if rep.InputTokens != 2 || rep.OutputTokens != 1 {
			t.Errorf("usage %+v", rep)
		}
	}
	if strings.Join(got, ",") != "yes,no,yes" {
		t.Fatalf("replies %q", got)
	}
}

// An unknown model name is an error unless a fallback is configured, also
// with a single backend; only an explicit "fallback" serves such names.
func TestSingleBackendFallbackIsExplicit(t *testing.T) {
	cases := []struct {
		name, data string
		wantErr    error
	}{
		{"no fallback", `{"backends": {"echo": {"type": "echo"}}}`, lm.ErrUnknownModel},
		{"explicit fallback", `{"backends": {"echo": {"type": "echo"}}, "fallback": "echo"}`, nil},
	}
	for _, tc := range cases {
		c, err := lmconfig.Parse([]byte(tc.data))
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.Router(nil)
		if err != nil {
			t.Fatal(err)
		}
		if name, _, err := r.Route("", 0); err != nil || name != "echo" {
			t.Errorf("%s: no model routed to %q, %v", tc.name, name, err)
		}
		name, _, err := r.Route("any-model", 0)
		if !errors.Is(err, tc.wantErr) || (err == nil && name != "echo") {
			t.Errorf("%s: Route(any-model) = %q, %v; want %v", tc.name, name, err, tc.wantErr)
		}
	}
}

// `tether lm serve --backend echo` keeps answering any model name: its
// configuration names the fallback explicitly.
func TestEchoConfigServesAnyModel(t *testing.T) {
	r, err := lmconfig.Echo().Router(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, depth := range []int{0, 1} {
		if name, _, err := r.Route("gpt-9", depth); err != nil || name != "echo" {
			t.Errorf("depth %d: Route(gpt-9) = %q, %v", depth, name, err)
		}
	}
}
