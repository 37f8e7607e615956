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

func init() {
	lmCmd := &cobra.Command{
		Use:   "lm",
		Short: "Serve or query language-model completions over rlm's length-prefixed JSON",
	}
	lmCmd.AddCommand(lmServeCmd(), lmQueryCmd())
	rootCmd.AddCommand(lmCmd)
}

func lmServeCmd() *cobra.Command {
	var (
		listen, backendName, configPath string
		echo                            lmconfig.Backend
		echoDelay                       time.Duration
		budget                          lm.Budget
		maxConns                        int
		insecureNoAuth                  bool
	)
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
			case configPath != "" && cmd.Flags().Changed("backend"):
				return errors.New("lm serve: give --backend or --config, not both")
			case configPath != "":
				c, err := lmconfig.Load(configPath)
				if err != nil {
					return err
				}
				cfg = c
			case backendName == "echo":
				cfg = lmconfig.Echo()
				echo.Type, echo.Delay = "echo", lmconfig.Duration(echoDelay)
				cfg.Backends["echo"] = echo
			default:
				return fmt.Errorf("lm serve: unknown backend %q (only echo; use --config for others)", backendName)
			}
			if budget.Calls > 0 || budget.Tokens > 0 {
				cfg.Budget = budget
			}
			router, err := cfg.Router(nil)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ln, err := lm.Listen(ctx, listen)
			if err != nil {
				return err
			}
			if !insecureNoAuth {
				if err := lm.CheckPeers(ln.Addr()); err != nil {
					ln.Close()
					return err
				}
			}
			opts := cfg.Options()
			opts.MaxConns = maxConns
			opts.InsecureNoAuth = insecureNoAuth
			limitServerMemory()
			srv := lm.NewServer(router, opts)
			fmt.Fprintln(cmd.OutOrStdout(), lm.FormatAddr(ln.Addr()))
			return serveUntil(ctx, func() error { return srv.Serve(ln) }, func() { srv.Close() })
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "127.0.0.1:0", "address: HOST:PORT or unix:PATH")
	f.StringVar(&backendName, "backend", "echo", "scripted backend when no --config: echo")
	f.StringVar(&configPath, "config", "", "JSON configuration file")
	f.DurationVar(&echoDelay, "echo-delay", 0, "echo backend: wait this long before each answer")
	f.StringVar(&echo.FailOn, "echo-fail-on", "", "echo backend: fail prompts containing this text")
	f.Int64Var(&budget.Calls, "budget-calls", 0, "refuse calls after this many (0: unlimited)")
	f.Int64Var(&budget.Tokens, "budget-tokens", 0, "refuse calls once this many tokens are spent (0: unlimited)")
	f.IntVar(&maxConns, "max-conns", 0, "connections open at once; past it a new one is closed (0: 1024)")
	f.BoolVar(&insecureNoAuth, "insecure-no-auth", false,
		"serve TCP without checking who connects (a non-loopback address, or no /proc): anyone who reaches the port spends the budget")
	return cmd
}

func lmQueryCmd() *cobra.Command {
	var (
		addr, model string
		depth       int
		timeout     time.Duration
	)
	cmd := &cobra.Command{
		Use:   "query [--addr ADDR] [--model M] PROMPT...",
		Short: "Ask an LM handler; one prompt is a single request, several are a batch",
		Long: `Ask the LM handler at --addr (default $TETHER_LM_ADDR) and print each
completion's response on its own line. A failed prompt of a batch is reported
on stderr and makes the exit status non-zero.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, prompts []string) error {
			if addr == "" {
				addr = os.Getenv("TETHER_LM_ADDR")
			}
			if addr == "" {
				return errors.New("lm query: no address: give --addr or set TETHER_LM_ADDR")
			}
			cl, err := lm.NewClient(addr, &lm.ClientOptions{Timeout: timeout, Depth: depth})
			if err != nil {
				return err
			}
			defer cl.Close()
			ctx := context.Background()
			out := cmd.OutOrStdout()
			if len(prompts) == 1 {
				c, err := cl.Query(ctx, prompts[0], model)
				if err != nil {
					return err
				}
				fmt.Fprintln(out, c.Response)
				return nil
			}
			comps, err := cl.QueryBatch(ctx, prompts, model)
			for _, c := range comps {
				fmt.Fprintln(out, c.Response)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "", "handler address: HOST:PORT or unix:PATH (default $TETHER_LM_ADDR)")
	f.StringVar(&model, "model", "", "model name (routing)")
	f.IntVar(&depth, "depth", 0, "recursion depth written in the request (routing)")
	f.DurationVar(&timeout, "timeout", 300*time.Second, "per-request timeout")
	return cmd
}
