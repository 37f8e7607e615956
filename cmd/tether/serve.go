package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/internal/accept"
	"github.com/tether-dev/tether/jsonrpc"
	"github.com/tether-dev/tether/judge/lmstart"
	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/service"
)

// serveOptions are tether serve's flags.
type serveOptions struct {
	Stdio           bool
	Listen          string // HOST:PORT or unix:PATH
	HTTP            string // HOST:PORT
	Framing         string // with --listen: ndjson or length
	LMAddr          string // --lm: the LM handler lm.complete goes to
	MaxConcurrent   int
	MaxQueue        int
	MaxConns        int
	TokenFile       string
	ProblemsRoot    string
	SubmissionsRoot string
	// AllowNetwork lets evaluators have the network when their problem asks.
	AllowNetwork bool
	judgingOptions
}

func newServeCmd(m machine) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve (--stdio | --listen ADDR | --http ADDR)",
		Short: "Offer the judge and the LM handler over JSON-RPC 2.0",
		Long: `serve answers JSON-RPC 2.0 requests: judge.run (with $/progress notifications,
cancellable with judge.cancel or $/cancelRequest), judge.cancel, lm.complete
(forwarded to the LM handler at --lm) and tether.version.

  --stdio        newline-delimited JSON on stdin/stdout, until stdin ends
  --listen ADDR  HOST:PORT or unix:PATH; --framing ndjson (default) or length
  --http ADDR    HTTP POST; "Accept: text/event-stream" streams progress

With --listen and --http the first line of stdout is the bound address.
--max-concurrent and --max-queue bound the whole server: however many clients
connect, past them a request is answered -32000 server overloaded.

Other local users can reach --listen HOST:PORT and --http, so clients need
the token in --token-file (made with mode 0600 when missing; without the flag
a fresh file is made and its path printed on stderr): over --listen, the
first call is rpc.authenticate {"token": T}; over HTTP, every POST carries
"Authorization: Bearer T". A unix:PATH socket is made 0600 instead. Except
with --stdio, problem and solution paths are read only under --problems-root
and --submissions-root, and an evaluator gets the network only with
--allow-network. A problem's own LM backends (runtime_config.lm) reach public
addresses only; --allow-lm-hosts lets them reach the addresses it lists.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd, m, o) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.Stdio, "stdio", false, "serve one connection on stdin/stdout (newline-delimited JSON)")
	f.StringVar(&o.Listen, "listen", "", "serve connections on `ADDR`: HOST:PORT or unix:PATH")
	f.StringVar(&o.HTTP, "http", "", "serve HTTP POST on `HOST:PORT`")
	f.StringVar(&o.Framing, "framing", "ndjson", "with --listen: ndjson or length (4-byte big-endian length prefix)")
	f.StringVar(&o.LMAddr, "lm", "", "answer lm.complete through the LM handler at `ADDR` (HOST:PORT or unix:PATH)")
	f.IntVar(&o.MaxConcurrent, "max-concurrent", 0, "requests handled at once, across all connections of --listen or --http (0: 64)")
	f.IntVar(&o.MaxQueue, "max-queue", 0, "requests waiting, across all connections of --listen or --http, before -32000 (0: 256)")
	f.IntVar(&o.MaxConns, "max-conns", 0, "connections open at once with --listen or --http; past it a new one is closed (0: 1024)")
	f.StringVar(&o.TokenFile, "token-file", "", "with --listen HOST:PORT or --http: the clients' token, read from `FILE` or made there (mode 0600)")
	f.StringVar(&o.ProblemsRoot, "problems-root", "", "with --listen or --http: read problem folders given as paths only under `DIR`")
	f.StringVar(&o.SubmissionsRoot, "submissions-root", "", "with --listen or --http: read solution.path only under `DIR`")
	f.BoolVar(&o.AllowNetwork, "allow-network", false, "let evaluators have the network when their problem asks (runtime_config.evaluator.network)")
	o.judgingOptions.addFlags(f)
	return cmd
}

func runServe(cmd *cobra.Command, m machine, o *serveOptions) error {
	modes := 0
	for _, on := range []bool{o.Stdio, o.Listen != "", o.HTTP != ""} {
		if on {
			modes++
		}
	}
	if modes != 1 {
		return errors.New("serve: give exactly one of --stdio, --listen ADDR, --http ADDR")
	}
	var frame jsonrpc.Framing
	switch o.Framing {
	case "ndjson":
		frame = jsonrpc.LineFraming(0)
	case "length":
		frame = jsonrpc.LengthFraming(0)
	default:
		return fmt.Errorf("serve: --framing %q: want ndjson or length", o.Framing)
	}
	runner, err := m.judgeRunner(cmd.ErrOrStderr(), o.Sandbox, nil)
	if err != nil {
		return err
	}
	defer runner.Close()
	judgeLMCfg, err := o.LM.config()
	if err != nil {
		return err
	}
	lmOpts, err := o.LM.handlerOptions()
	if err != nil {
		return err
	}
	svcOpts := &service.Options{Runner: runner, AllowedCommands: o.AllowCommands,
		Logger: slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))}
	// Each judge.run gets its own LM handler: from --lm-config, else from
	// the problem's runtime_config.lm (public addresses only, unless
	// --allow-lm-hosts), else none.
	svcOpts.Judge.LM = lmstart.Starter(judgeLMCfg, lmOpts)
	if svcOpts.Judge.EvaluatorNetworkAllow, err = networkAllow(o.NetworkAllow, ""); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if svcOpts.Judge.Languages, svcOpts.Judge.BuildCache, err = o.Build.languages(); err != nil {
		return err
	}
	if o.LMAddr != "" {
		client, err := lm.NewClient(o.LMAddr, nil)
		if err != nil {
			return fmt.Errorf("serve: --lm: %w", err)
		}
		defer client.Close()
		svcOpts.LM = client
	}
	svcOpts.ProblemsRoot, svcOpts.SubmissionsRoot = o.ProblemsRoot, o.SubmissionsRoot
	svcOpts.PathsNeedRoot, svcOpts.AllowNetwork = !o.Stdio, o.AllowNetwork
	svc := service.New(svcOpts)
	rpcOpts := &jsonrpc.Options{Handler: svc.Mux(), MaxConcurrent: o.MaxConcurrent, MaxQueue: o.MaxQueue,
		MaxConns: o.MaxConns, Logger: svcOpts.Logger}
	if o.HTTP != "" || o.Listen != "" && !strings.HasPrefix(o.Listen, "unix:") {
		token, file, cleanup, err := serverToken(o.TokenFile)
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		defer cleanup()
		rpcOpts.Token = token
		fmt.Fprintf(cmd.ErrOrStderr(), "tether serve: clients need the token in %s "+
			"(rpc.authenticate {\"token\": ...} first, or over HTTP \"Authorization: Bearer ...\")\n", file)
	}

	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch {
	case o.Stdio:
		return serveStdio(ctx, cmd, rpcOpts)
	case o.Listen != "":
		limitServerMemory()
		ln, err := lm.Listen(ctx, o.Listen)
		if err != nil {
			return err
		}
		fmt.Fprintln(cmd.OutOrStdout(), lm.FormatAddr(ln.Addr()))
		return jsonrpc.Serve(ctx, ln, frame, rpcOpts)
	default:
		limitServerMemory()
		return serveHTTP(ctx, cmd, o.HTTP, rpcOpts)
	}
}

// stdinGrace bounds the wait for a stdin read that Close cannot interrupt
// (a terminal) after an interrupt; running handlers are cancelled by then.
const stdinGrace = 5 * time.Second

func serveStdio(ctx context.Context, cmd *cobra.Command, opts *jsonrpc.Options) error {
	conn := jsonrpc.NewConn(jsonrpc.NDJSON(pollableStdin(cmd.InOrStdin()), cmd.OutOrStdout(), 0), opts)
	select {
	case <-conn.Done():
		return conn.Wait()
	case <-ctx.Done():
	}
	closed := make(chan struct{})
	go func() {
		conn.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(stdinGrace):
	}
	return nil
}

// pollableStdin returns a stdin that is a pipe or socket as a non-blocking
// file, so that closing it interrupts a read in progress and an interrupt
// can stop the server while the client keeps its end open. Terminals and
// other readers are returned as they are.
func pollableStdin(in io.Reader) io.Reader {
	if in != io.Reader(os.Stdin) {
		return in
	}
	info, err := os.Stdin.Stat()
	if err != nil || info.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return in
	}
	if err := syscall.SetNonblock(0, true); err != nil {
		return in
	}
	return os.NewFile(0, "/dev/stdin")
}

func serveHTTP(ctx context.Context, cmd *cobra.Command, addr string, opts *jsonrpc.Options) error {
	raw, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintln(cmd.OutOrStdout(), raw.Addr().String())
	if host, _, err := net.SplitHostPort(raw.Addr().String()); err == nil {
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			// A web page whose name is rebound to 127.0.0.1 sends its own name.
			opts.AllowedHosts = []string{"localhost", "127.0.0.1", "::1"}
		}
	}
	ln := accept.New(raw, opts.MaxConns)
	srv := jsonrpc.NewHTTPServer(jsonrpc.NewHTTPHandler(opts, 0), opts)
	srv.BaseContext = func(net.Listener) context.Context { return ctx }
	return serveUntil(ctx, func() error { return srv.Serve(ln) }, func() { srv.Close() })
}
