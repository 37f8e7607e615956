package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/judge/lmstart"
	"github.com/tether-dev/tether/lm/backend"
	"github.com/tether-dev/tether/lm/lmconfig"
)

const (
	lmConfigFlag     = "lm-config"
	allowLMHostsFlag = "allow-lm-hosts"
)

// lmHandlerOptions are a judging command's flags for the run's LM handlers.
type lmHandlerOptions struct {
	ConfigFile string   // --lm-config: replaces the problem's runtime_config.lm
	AllowHosts []string // --allow-lm-hosts: non-public addresses a problem's own backends may reach
}

func (o *lmHandlerOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.ConfigFile, lmConfigFlag, "", "start an LM handler for the run from this configuration `FILE` "+
		"(see `tether lm serve --config`); it replaces the problem's runtime_config.lm")
	f.StringSliceVar(&o.AllowHosts, allowLMHostsFlag, nil, "let a problem's own LM backends (runtime_config.lm) reach these `ADDRS` "+
		"although they are not public: IP addresses or CIDR prefixes, comma-separated or repeated (127.0.0.1,10.0.0.0/8)")
}

// handlerOptions are the operator's choices for the run's LM handlers.
func (o *lmHandlerOptions) handlerOptions() (*lmstart.Options, error) {
	allow, err := backend.ParseAllow(o.AllowHosts)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", allowLMHostsFlag, err)
	}
	return &lmstart.Options{AllowLMHosts: allow}, nil
}

// config loads --lm-config, if given, and checks it before anything
// starts, so a bad file is a usage error, not a verdict.
func (o *lmHandlerOptions) config() (*lmconfig.Config, error) {
	path := o.ConfigFile
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

// starter resolves the run's LM handler configuration (package lmstart's
// rules): --lm-config wins, else the problem's runtime_config.lm.
func (o *lmHandlerOptions) starter(problem *judge.Problem) (judge.LMStarter, error) {
	opts, err := o.handlerOptions()
	if err != nil {
		return nil, err
	}
	cfg, err := o.config()
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
