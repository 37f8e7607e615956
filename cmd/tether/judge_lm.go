package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/judge/lmstart"
	"github.com/tether-dev/tether/lm/backend"
	"github.com/tether-dev/tether/lm/lmconfig"
)

const (
	lmConfigFlag     = "lm-config"
	allowLMHostsFlag = "allow-lm-hosts"
)

func addJudgeLMFlags(cmd *cobra.Command) {
	cmd.Flags().String(lmConfigFlag, "", "start an LM handler for the run from this configuration `FILE` "+
		"(see `tether lm serve --config`); it replaces the problem's runtime_config.lm")
	cmd.Flags().StringSlice(allowLMHostsFlag, nil, "let a problem's own LM backends (runtime_config.lm) reach these `ADDRS` "+
		"although they are not public: IP addresses or CIDR prefixes, comma-separated or repeated (127.0.0.1,10.0.0.0/8)")
}

// judgeLMOptions are the operator's choices for the run's LM handlers.
func judgeLMOptions(cmd *cobra.Command) (*lmstart.Options, error) {
	entries, _ := cmd.Flags().GetStringSlice(allowLMHostsFlag)
	allow, err := backend.ParseAllow(entries)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", allowLMHostsFlag, err)
	}
	return &lmstart.Options{AllowLMHosts: allow}, nil
}

// judgeLMConfig loads --lm-config, if given, and checks it before anything
// starts, so a bad file is a usage error, not a verdict.
func judgeLMConfig(cmd *cobra.Command) (*lmconfig.Config, error) {
	path, _ := cmd.Flags().GetString(lmConfigFlag)
	if path == "" {
		return nil, nil
	}
	cfg, err := lmconfig.Load(path)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", lmConfigFlag, err)
	}
	if _, err := cfg.Router(nil); err != nil { // missing key variables are found now
		return nil, fmt.Errorf("--%s %s: %w", lmConfigFlag, path, err)
	}
	return cfg, nil
}

// judgeLM resolves the run's LM handler configuration (package lmstart's
// rules): --lm-config wins, else the problem's runtime_config.lm.
func judgeLM(cmd *cobra.Command, problem *judge.Problem) (judge.LMStarter, error) {
	opts, err := judgeLMOptions(cmd)
	if err != nil {
		return nil, err
	}
	cfg, err := judgeLMConfig(cmd)
	if err != nil || cfg != nil {
		if err != nil {
			return nil, err
		}
		return lmstart.Starter(cfg, opts), nil
	}
	cfg, err = lmstart.ProblemConfig(problem)
	if err != nil {
		return nil, err
	}
	if cfg == nil {
		return nil, nil
	}
	return lmstart.Starter(nil, opts), nil
}

// printLMUsage adds the LM handler's usage to the human summary.
func printLMUsage(w io.Writer, r *judge.Result) {
	if len(r.LMUsage) > 0 {
		fmt.Fprintf(w, "lm usage: %s\n", r.LMUsage)
	}
}
