package lmconfig

import (
	"context"
	"errors"

	"github.com/tether-dev/tether/lm"
)

// Run is an LM handler started for one judge run: it listens on a Unix
// socket that can be bind-mounted into a sandbox without network, and
// enforces the configuration's budget for this run only.
type Run struct {
	// Addr is "unix:PATH", the value for the evaluator's TETHER_LM_ADDR.
	Addr string
	srv  *lm.Server
	done chan error
}

// StartRun builds c's backends and serves them on the Unix socket at
// socketPath until Close. getenv looks up API keys (os.Getenv when nil);
// observe, if not nil, is lm.Options.Observe.
func StartRun(ctx context.Context, c *Config, socketPath string, getenv func(string) string, observe func(lm.CompletionRecord)) (*Run, error) {
	router, err := c.Router(getenv)
	if err != nil {
		return nil, err
	}
	ln, err := lm.Listen(ctx, "unix:"+socketPath)
	if err != nil {
		return nil, err
	}
	r := &Run{Addr: lm.FormatAddr(ln.Addr()), srv: lm.NewServer(router, c.options(observe)), done: make(chan error, 1)}
	go func() { r.done <- r.srv.Serve(ln) }()
	return r, nil
}

// Usage is what the run's code spent so far (the judge result's lm_usage).
func (r *Run) Usage() lm.UsageSummary { return r.srv.Usage() }

// Close stops the handler and waits for it; the socket file is removed.
// It must be called once.
func (r *Run) Close() error {
	r.srv.Close()
	if err := <-r.done; !errors.Is(err, lm.ErrServerClosed) {
		return err
	}
	return nil
}
