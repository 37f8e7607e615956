// Package lmstart connects the judge to the LM handler: it resolves which
// handler configuration a run uses and starts an lm/lmconfig handler on the
// Unix socket the judge gives it (judge.Options.LM).
//
// Which configuration a run uses:
//
//  1. the judge's own configuration (`tether judge --lm-config FILE`), when
//     given, for every run, whatever the problem says: the operator decides
//     which models and keys exist;
//  2. else the problem's runtime_config.lm: the configuration object inline,
//     or a path to a file holding one inside the problem folder (read with
//     judge.Problem.ReadLMConfig). A problem's configuration may not name
//     api_key_env: keys stay in the judge's configuration, so a problem
//     cannot make the judge send one of its environment variables to a
//     server of the problem's choosing. Its openai backends run under a
//     backend.Guard: public addresses only (plus Options.AllowLMHosts), no
//     redirects, and only the HTTP status of a failed request reaches the
//     evaluator;
//  3. else the run has no handler.
//
// Each run gets its own handler, so a configuration's budget (calls,
// tokens) is a per-run budget.
package lmstart

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"slices"

	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/lm/backend"
	"github.com/tether-dev/tether/lm/lmconfig"
)

// ErrKeyInProblem: a problem's runtime_config.lm names an api_key_env.
var ErrKeyInProblem = errors.New("a problem's LM configuration may not name api_key_env (keys belong in the judge's --lm-config)")

// ProblemConfig reads and checks p's runtime_config.lm; (nil, nil) when the
// problem declares none. The configuration has a Guard that allows public
// addresses only. Errors are *judge.ProblemError naming the field; those
// about a file never quote it.
func ProblemConfig(p *judge.Problem) (*lmconfig.Config, error) {
	src, err := p.LM()
	if err != nil || !src.Declared() {
		return nil, err
	}
	var cfg *lmconfig.Config
	where := "runtime_config.lm"
	if src.Path != "" {
		where = "runtime_config.lm (" + src.Path + ")"
		var data []byte
		if data, err = p.ReadLMConfig(src); err != nil {
			return nil, err
		}
		if cfg, err = lmconfig.Parse(data); err != nil {
			err = withoutContent(err)
		} else if err = refuseKeys(cfg, false); err == nil {
			if _, err = cfg.Router(nil); err != nil { // its routes, checked now
				err = errNotAConfig
			}
		}
	} else if cfg, err = lmconfig.Parse(src.Inline); err == nil {
		if err = refuseKeys(cfg, true); err == nil {
			_, err = cfg.Router(nil)
		}
	}
	if err != nil {
		return nil, &judge.ProblemError{Path: p.Dir + "/problem.json", Field: where,
			Err: fmt.Errorf("%w: %w", judge.ErrBadProblemJSON, err)}
	}
	cfg.Guard = &backend.Guard{}
	return cfg, nil
}

// errNotAConfig is what a file that is not a valid configuration is told,
// beyond the position of a JSON error: its own words are not repeated.
var errNotAConfig = errors.New("not a valid LM configuration (`tether lm serve --config FILE` says what is wrong with it)")

// withoutContent is a Parse error of a file's bytes told without quoting
// them: the judge reads the file, and whoever reads the error may not be
// allowed to read the file.
func withoutContent(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Errorf("not valid JSON (at byte %d)", syntax.Offset)
	case errors.As(err, &typ):
		return fmt.Errorf("%w: a value of the wrong type at byte %d", errNotAConfig, typ.Offset)
	}
	return errNotAConfig
}

// refuseKeys refuses a backend naming api_key_env; named says whether the
// error may name the backend (not for one read from a file).
func refuseKeys(c *lmconfig.Config, named bool) error {
	names := make([]string, 0, len(c.Backends))
	for name := range c.Backends {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if c.Backends[name].APIKeyEnv != "" {
			if !named {
				return fmt.Errorf("a backend: %w", ErrKeyInProblem)
			}
			return fmt.Errorf("backends[%q]: %w", name, ErrKeyInProblem)
		}
	}
	return nil
}

// Options are the operator's choices for the handlers a Starter starts.
type Options struct {
	// Getenv looks up API keys for the judge's own configuration's backends
	// (os.Getenv when nil).
	Getenv func(string) string
	// AllowLMHosts are addresses a problem's own openai backends may reach
	// although they are not public (loopback, private, link-local): IPs as
	// /32 or /128 prefixes, or wider prefixes. See backend.ParseAllow.
	AllowLMHosts []netip.Prefix
}

// Starter is the judge.Options.LM of a judge whose own configuration is
// judgeConfig (nil: none, problems' configurations only); opts may be nil.
func Starter(judgeConfig *lmconfig.Config, opts *Options) judge.LMStarter {
	if opts == nil {
		opts = &Options{}
	}
	return func(ctx context.Context, p *judge.Problem, socketPath string, observe func(judge.LMRequest)) (judge.LMHandler, error) {
		cfg := judgeConfig
		if cfg == nil {
			var err error
			if cfg, err = ProblemConfig(p); err != nil || cfg == nil {
				return nil, err
			}
			cfg.Guard.Allow = opts.AllowLMHosts
		}
		run, err := lmconfig.StartRun(ctx, cfg, socketPath, opts.Getenv, lmObserver(observe))
		if err != nil {
			return nil, err
		}
		return handler{run}, nil
	}
}

// lmObserver converts the handler's records to the judge's LMRequest.
func lmObserver(observe func(judge.LMRequest)) func(lm.CompletionRecord) {
	if observe == nil {
		return nil
	}
	return func(c lm.CompletionRecord) {
		req := judge.LMRequest{Model: c.Model, Backend: c.Backend, Depth: c.Depth, PromptBytes: c.PromptBytes,
			CompletionBytes: c.CompletionBytes, InputTokens: c.InputTokens, OutputTokens: c.OutputTokens,
			LatencyUs: c.Latency.Microseconds(),
			Budget: judge.LMBudget{Calls: c.Budget.Calls, CallsLimit: c.Budget.CallsLimit, Tokens: c.Budget.Tokens,
				TokensLimit: c.Budget.TokensLimit}}
		if c.Err != nil {
			req.Error = c.Err.Error()
		}
		observe(req)
	}
}

// handler adapts *lmconfig.Run to judge.LMHandler.
type handler struct{ run *lmconfig.Run }

func (h handler) UsageJSON() (json.RawMessage, error) { return json.Marshal(h.run.Usage()) }
func (h handler) Close() error                        { return h.run.Close() }
