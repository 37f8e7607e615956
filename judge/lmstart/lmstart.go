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
//     or a path to a file holding one, relative to the problem folder. A
//     problem's configuration may not name api_key_env: keys stay in the
//     judge's configuration, so a problem cannot make the judge send one of
//     its environment variables to a server of the problem's choosing;
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
	"slices"

	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/lm/lmconfig"
)

// ErrKeyInProblem: a problem's runtime_config.lm names an api_key_env.
var ErrKeyInProblem = errors.New("a problem's LM configuration may not name api_key_env (keys belong in the judge's --lm-config)")

// ProblemConfig reads and checks p's runtime_config.lm; (nil, nil) when the
// problem declares none. Errors are *judge.ProblemError naming the field.
func ProblemConfig(p *judge.Problem) (*lmconfig.Config, error) {
	src, err := p.LM()
	if err != nil || !src.Declared() {
		return nil, err
	}
	var cfg *lmconfig.Config
	where := "runtime_config.lm"
	if src.Path != "" {
		cfg, err = lmconfig.Load(src.Path)
		where = "runtime_config.lm (" + src.Path + ")"
	} else {
		cfg, err = lmconfig.Parse(src.Inline)
	}
	if err == nil {
		err = refuseKeys(cfg)
	}
	if err != nil {
		return nil, &judge.ProblemError{Path: p.Dir + "/problem.json", Field: where,
			Err: fmt.Errorf("%w: %w", judge.ErrBadProblemJSON, err)}
	}
	return cfg, nil
}

func refuseKeys(c *lmconfig.Config) error {
	names := make([]string, 0, len(c.Backends))
	for name := range c.Backends {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if c.Backends[name].APIKeyEnv != "" {
			return fmt.Errorf("backends[%q]: %w", name, ErrKeyInProblem)
		}
	}
	return nil
}

// Starter is the judge.Options.LM of a judge whose own configuration is
// judgeConfig (nil: none, problems' configurations only). getenv looks up
// API keys for judgeConfig's backends (os.Getenv when nil).
func Starter(judgeConfig *lmconfig.Config, getenv func(string) string) judge.LMStarter {
	return func(ctx context.Context, p *judge.Problem, socketPath string, observe func(judge.LMRequest)) (judge.LMHandler, error) {
		cfg := judgeConfig
		if cfg == nil {
			var err error
			if cfg, err = ProblemConfig(p); err != nil || cfg == nil {
				return nil, err
			}
		}
		run, err := lmconfig.StartRun(ctx, cfg, socketPath, getenv, lmObserver(observe))
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
