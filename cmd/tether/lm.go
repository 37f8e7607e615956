package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/lm/lmconfig"
)

func newLMCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lm",
		Short: "Serve or query language-model completions over rlm's length-prefixed JSON",
	}
	cmd.AddCommand(newLMServeCmd(), newLMQueryCmd())
	return cmd
}

// lmServeOptions are tether lm serve's flags.
type lmServeOptions struct {
	Listen     string
	Backend    givenString // the scripted backend when no --config
	ConfigFile string
	EchoDelay  time.Duration
	EchoFailOn string
	Budget     lm.Budget
	MaxConns   int
	// InsecureNoAuth serves TCP without checking who connects.
	InsecureNoAuth bool
}

func newLMServeCmd() *cobra.Command {
	o := &lmServeOptions{Backend: givenString{value: "echo"}}
	cmd := &cobra.Command{
		Use:   "serve --listen ADDR [--backend echo | --config FILE]",
		Short: "Run an LM handler; prints the bound address as the first line of stdout",
		Long: `Run an LM handler on ADDR, HOST:PORT (port 0 picks one) or unix:PATH, until
interrupted. The first line of stdout is the bound address, in the same form.
Backends come from --config FILE (see package lmconfig) or --backend echo.

Who may connect (rlm's wire carries no credential): on unix:PATH, the socket
is created 0600, so only this user (and root); on a loopback HOST:PORT, only
connections from processes of this user or root, found from /proc/net/tcp;
others are closed at once and logged. A non-loopback address, or a system
without /proc, is refused unless --insecure-no-auth is given, which lets
anyone who can reach the port spend the LM budget.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var cfg *lmconfig.Config
			switch {
			case o.ConfigFile != "" && o.Backend.given:
				return errors.New("lm serve: give --backend or --config, not both")
			case o.ConfigFile != "":
				c, err := lmconfig.Load(o.ConfigFile)
				if err != nil {
					return err
				}
				cfg = c
			case o.Backend.value == "echo":
				cfg = lmconfig.Echo()
				cfg.Backends["echo"] = lmconfig.Backend{Type: "echo", Delay: lmconfig.Duration(o.EchoDelay), FailOn: o.EchoFailOn}
			default:
				return fmt.Errorf("lm serve: unknown backend %q (only echo; use --config for others)", o.Backend.value)
			}
			if o.Budget.Calls > 0 || o.Budget.Tokens > 0 {
				cfg.Budget = o.Budget
			}
			router, err := cfg.Router(nil)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ln, err := lm.Listen(ctx, o.Listen)
			if err != nil {
				return err
			}
			if !o.InsecureNoAuth {
				if err := lm.CheckPeers(ln.Addr()); err != nil {
					ln.Close()
					return err
				}
			}
			opts := cfg.Options()
			opts.MaxConns = o.MaxConns
			opts.InsecureNoAuth = o.InsecureNoAuth
			limitServerMemory()
			srv := lm.NewServer(router, opts)
			fmt.Fprintln(cmd.OutOrStdout(), lm.FormatAddr(ln.Addr()))
			return serveUntil(ctx, func() error { return srv.Serve(ln) }, func() { srv.Close() })
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Listen, "listen", "127.0.0.1:0", "address: HOST:PORT or unix:PATH")
	f.Var(&o.Backend, "backend", "scripted backend when no --config: echo")
	f.StringVar(&o.ConfigFile, "config", "", "JSON configuration file")
	f.DurationVar(&o.EchoDelay, "echo-delay", 0, "echo backend: wait this long before each answer")
	f.StringVar(&o.EchoFailOn, "echo-fail-on", "", "echo backend: fail prompts containing this text")
	f.Int64Var(&o.Budget.Calls, "budget-calls", 0, "refuse calls after this many (0: unlimited)")
	f.Int64Var(&o.Budget.Tokens, "budget-tokens", 0, "refuse calls once this many tokens are spent (0: unlimited)")
	f.IntVar(&o.MaxConns, "max-conns", 0, "connections open at once; past it a new one is closed (0: 1024)")
	f.BoolVar(&o.InsecureNoAuth, "insecure-no-auth", false,
		"serve TCP without checking who connects (a non-loopback address, or no /proc): anyone who reaches the port spends the budget")
	return cmd
}

// lmQueryOptions are tether lm query's flags.
type lmQueryOptions struct {
	Addr    string // the handler's address; "": TETHER_LM_ADDR
	Model   string
	Depth   int // recursion depth written in the request
	Timeout time.Duration
}

func newLMQueryCmd() *cobra.Command {
	o := &lmQueryOptions{}
	cmd := &cobra.Command{
		Use:   "query [--addr ADDR] [--model M] PROMPT...",
		Short: "Ask an LM handler; one prompt is a single request, several are a batch",
		Long: `Ask the LM handler at --addr (default $TETHER_LM_ADDR) and print each
completion's response on its own line. A failed prompt of a batch is reported
on stderr and makes the exit status non-zero.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, prompts []string) error {
			addr := o.Addr
			if addr == "" {
				addr = os.Getenv("TETHER_LM_ADDR")
			}
			if addr == "" {
				return errors.New("lm query: no address: give --addr or set TETHER_LM_ADDR")
			}
			cl, err := lm.NewClient(addr, &lm.ClientOptions{Timeout: o.Timeout, Depth: o.Depth})
			if err != nil {
				return err
			}
			defer cl.Close()
			ctx := context.Background()
			out := cmd.OutOrStdout()
			if len(prompts) == 1 {
				c, err := cl.Query(ctx, prompts[0], o.Model)
				if err != nil {
					return err
				}
				fmt.Fprintln(out, c.Response)
				return nil
			}
			comps, err := cl.QueryBatch(ctx, prompts, o.Model)
			for _, c := range comps {
				fmt.Fprintln(out, c.Response)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Addr, "addr", "", "handler address: HOST:PORT or unix:PATH (default $TETHER_LM_ADDR)")
	f.StringVar(&o.Model, "model", "", "model name (routing)")
	f.IntVar(&o.Depth, "depth", 0, "recursion depth written in the request (routing)")
	f.DurationVar(&o.Timeout, "timeout", 300*time.Second, "per-request timeout")
	return cmd
}

// givenString is a string flag's value that knows whether the command line
// gave it, for a check that a default cannot tell (lm serve refuses
// --backend beside --config although --backend has a default).
type givenString struct {
	value string
	given bool
}

func (s *givenString) String() string     { return s.value }
func (s *givenString) Set(v string) error { s.value, s.given = v, true; return nil }
func (s *givenString) Type() string       { return "string" }
