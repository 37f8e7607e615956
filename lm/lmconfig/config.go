// Package lmconfig reads an LM handler's JSON configuration file: its
// backends (and the environment variables holding their keys), routing,
// limits and budget, and builds the lm.Router and lm.Options from it.
//
//	{
//	  "backends": {
//	    "gpt-4o-mini": {"type": "openai", "base_url": "https://api.openai.com/v1",
//	                    "api_key_env": "OPENAI_API_KEY", "args": {"temperature": 0},
//	                    "timeout": "60s", "retries": 3},
//	    "echo": {"type": "echo", "delay": "50ms"},
//	    "script": {"type": "echo", "replies": ["yes", "no"], "fail_on": "boom", "fail_every": 5}
//	  },
//	  "default": "gpt-4o-mini", "other": "echo",
//	  "rules": [{"model": "fast", "backend": "echo"}], "fallback": "",
//	  "max_in_flight": 16, "batch_concurrency": 16, "max_frame": 67108864,
//	  "idle_timeout": "5m", "read_timeout": "30s", "write_timeout": "30s",
//	  "budget": {"calls": 100, "tokens": 200000}
//	}
//
// A backend's name is the model name requests select it by. A request that
// names a model no backend or rule serves is an error ("unknown model"),
// even with a single backend, unless "fallback" names the backend that
// serves such names. Keys are never written in the file, only the name of
// the variable that holds one.
package lmconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/lm/backend"
)

// Duration is a time.Duration written as a Go duration string ("1.5s").
type Duration time.Duration

// UnmarshalJSON reads "300ms", "2m" and the like.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string like \"30s\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	if v < 0 {
		return fmt.Errorf("negative duration %q", s)
	}
	*d = Duration(v)
	return nil
}

// Backend is one entry of "backends".
type Backend struct {
	Type string `json:"type"` // "openai" or "echo"

	// openai
	BaseURL   string         `json:"base_url,omitempty"`
	APIKeyEnv string         `json:"api_key_env,omitempty"`
	Model     string         `json:"model,omitempty"` // upstream model; default: the backend's name
	Args      map[string]any `json:"args,omitempty"`
	Price     *backend.Price `json:"price,omitempty"`
	Timeout   Duration       `json:"timeout,omitempty"`
	Retries   int            `json:"retries,omitempty"`
	Backoff   Duration       `json:"backoff,omitempty"`

	// echo
	Delay     Duration `json:"delay,omitempty"`
	FailOn    string   `json:"fail_on,omitempty"`
	FailEvery int64    `json:"fail_every,omitempty"`
	Replies   []string `json:"replies,omitempty"` // fixed answers, in turn
}

// Config is the whole file.
type Config struct {
	Backends         map[string]Backend `json:"backends"`
	Default          string             `json:"default"`
	Other            string             `json:"other,omitempty"`
	Rules            []lm.Rule          `json:"rules,omitempty"`
	Fallback         string             `json:"fallback,omitempty"`
	MaxInFlight      int                `json:"max_in_flight,omitempty"`
	BatchConcurrency int                `json:"batch_concurrency,omitempty"`
	MaxFrame         int                `json:"max_frame,omitempty"`
	IdleTimeout      Duration           `json:"idle_timeout,omitempty"`
	ReadTimeout      Duration           `json:"read_timeout,omitempty"`
	WriteTimeout     Duration           `json:"write_timeout,omitempty"`
	Budget           lm.Budget          `json:"budget"`

	// Guard, when not nil, marks a configuration that a problem declares
	// rather than the operator: its openai backends reach only what Guard
	// allows, follow no redirect, and their errors carry the HTTP status
	// only (backend.OpenAI.StatusOnly). It is never read from the file.
	Guard *backend.Guard `json:"-"`
}

// Load reads and checks the file at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("lm config: %w", err)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("lm config %s: %w", path, err)
	}
	return c, nil
}

// Parse decodes a configuration strictly (unknown fields are errors) and
// checks it. Environment variables are read later, by Router.
func Parse(data []byte) (*Config, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		return nil, err
	}
	if len(c.Backends) == 0 {
		return nil, fmt.Errorf("no backends")
	}
	if c.Default == "" {
		if len(c.Backends) != 1 {
			return nil, fmt.Errorf(`"default" is required with more than one backend`)
		}
		for name := range c.Backends {
			c.Default = name
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Backends)) {
		switch b := c.Backends[name]; b.Type {
		case "echo":
		case "openai":
			if b.BaseURL == "" {
				return nil, fmt.Errorf("backends[%q]: base_url is required", name)
			}
		default:
			return nil, fmt.Errorf("backends[%q]: unknown type %q (want \"openai\" or \"echo\")", name, b.Type)
		}
	}
	if c.Budget.Calls < 0 || c.Budget.Tokens < 0 {
		return nil, fmt.Errorf("budget: negative limit")
	}
	return &c, nil
}

// Echo is the configuration of `--backend echo`: one echo backend named
// "echo", which is also the fallback, so it answers whatever model a request
// names (as rlm's handler with one client does).
func Echo() *Config {
	return &Config{Backends: map[string]Backend{"echo": {Type: "echo"}}, Default: "echo", Fallback: "echo"}
}

// Router builds the backends and their routing. getenv looks up API keys
// (os.Getenv when nil); a named variable that is unset is an error.
func (c *Config) Router(getenv func(string) string) (*lm.Router, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	backends := make(map[string]lm.Backend, len(c.Backends))
	var guarded *http.Client
	if c.Guard != nil {
		guarded = c.Guard.Client()
	}
	for _, name := range slices.Sorted(maps.Keys(c.Backends)) {
		b := c.Backends[name]
		switch b.Type {
		case "echo":
			backends[name] = &backend.Echo{Delay: time.Duration(b.Delay), FailOn: b.FailOn, FailEvery: b.FailEvery, Replies: b.Replies}
		case "openai":
			var key string
			if b.APIKeyEnv != "" {
				if key = getenv(b.APIKeyEnv); key == "" {
					return nil, fmt.Errorf("lm config: backends[%q]: environment variable %s (api_key_env) is not set", name, b.APIKeyEnv)
				}
			}
			model := b.Model
			if model == "" {
				model = name
			}
			backends[name] = &backend.OpenAI{BaseURL: b.BaseURL, APIKey: key, Model: model, Args: b.Args, Price: b.Price,
				Timeout: time.Duration(b.Timeout), Retries: b.Retries, Backoff: time.Duration(b.Backoff),
				Client: guarded, StatusOnly: c.Guard != nil}
		}
	}
	return lm.NewRouter(lm.RouterConfig{Backends: backends, Default: c.Default, Other: c.Other, Rules: c.Rules, Fallback: c.Fallback})
}

// Options are the server options of the file.
func (c *Config) Options() *lm.Options { return c.options(nil) }

func (c *Config) options(observe func(lm.CompletionRecord)) *lm.Options {
	return &lm.Options{
		Observe:          observe,
		MaxFrame:         c.MaxFrame,
		IdleTimeout:      time.Duration(c.IdleTimeout),
		ReadTimeout:      time.Duration(c.ReadTimeout),
		WriteTimeout:     time.Duration(c.WriteTimeout),
		MaxInFlight:      c.MaxInFlight,
		BatchConcurrency: c.BatchConcurrency,
		Budget:           c.Budget,
	}
}
