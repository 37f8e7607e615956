package evaluator

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/tether-dev/tether/codec"
	"github.com/tether-dev/tether/sdk/go/internal/frame"
	"github.com/tether-dev/tether/sdk/go/internal/peer"
	"github.com/tether-dev/tether/sig"
)

// Handler serves one capability call. args are decoded transferable values
// (see package codec); the returned value must be transferable. A returned
// error becomes an error frame with code Exception (or the code of a
// *HandlerError).
type Handler func(ctx context.Context, args []any) (any, error)

// HandlerError lets a capability handler answer with a chosen code.
type HandlerError struct {
	Code    string
	Message string
}

func (e *HandlerError) Error() string { return e.Code + ": " + e.Message }

// Options of a Runner; nil means defaults.
type Options struct {
	// Log receives the solution's log frames (stream "stdout"/"stderr").
	// Nil writes them to os.Stderr, which the judge collects.
	Log func(stream, data string)
	// ResultNonce signs the result marker (docs/protocol/judge.md, "The
	// result line"). Empty means the judge's, from the environment
	// variable TETHER_RESULT_NONCE; without one the marker is plain.
	ResultNonce string
	// Functions is the problem's declaration in the judge's compact form
	// (docs/protocol/judge.md, "Declared functions"), for CallDeclared.
	// Empty means the judge's, from the environment variable
	// TETHER_FUNCTIONS.
	Functions string
}

// Runner is the evaluator side of the dual protocol. It is safe for
// concurrent use: many Calls may be in flight over the one channel; their
// responses are routed by id on the reading goroutine. Capability handlers
// run each in their own goroutine, which Close waits for.
type Runner struct {
	p    *peer.Peer
	opts Options
	out  io.Writer

	mu   sync.Mutex // guards caps
	caps map[string]Handler

	handlers sync.WaitGroup
	ctx      context.Context // cancelled by Close, passed to handlers
	cancel   context.CancelFunc

	resultMu   sync.Mutex
	resultDone bool

	declOnce sync.Once
	decl     *sig.Declaration
	declErr  error
}

// New returns a Runner reading frames from in and writing to out.
func New(in io.Reader, out io.Writer, opts *Options) *Runner {
	r := &Runner{out: out, caps: make(map[string]Handler)}
	if opts != nil {
		r.opts = *opts
	}
	if r.opts.ResultNonce == "" {
		r.opts.ResultNonce = os.Getenv(codec.ResultNonceEnv)
	}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	r.p = peer.New(in, out, r.onFrame)
	r.p.OnUndecodable(r.onUndecodable)
	r.p.Start()
	return r
}

var (
	stdOnce   sync.Once
	stdRunner *Runner
)

// Default returns the process-wide Runner over os.Stdin and os.Stdout.
func Default() *Runner {
	stdOnce.Do(func() { stdRunner = New(os.Stdin, os.Stdout, nil) })
	return stdRunner
}

// Call calls fn in the solution and waits for its value. Arguments must be
// transferable; if not, Call fails with ErrRejected without sending. The
// judge keeps time: Call waits until the solution answers or the judge sends
// CallTimeout, or ctx ends. See CallWithTimeout for a per-call deadline.
func (r *Runner) Call(ctx context.Context, fn string, args ...any) (any, error) {
	return r.CallWithTimeout(ctx, 0, fn, args...)
}

// CallWithTimeout is Call with the frame's timeout_ms set (0: the problem's
// default call timeout).
func (r *Runner) CallWithTimeout(ctx context.Context, timeout time.Duration, fn string, args ...any) (any, error) {
	resp, err := r.p.Ask(ctx, "call", fn, args, timeout.Milliseconds(), ErrRejected)
	if err != nil {
		return nil, fmt.Errorf("evaluator: call %s: %w", fn, err)
	}
	if resp.Type == "error" {
		return nil, &CallError{Fn: fn, Code: resp.Code, Message: resp.Message, Trace: resp.Trace}
	}
	return resp.Value, nil
}

// RegisterCapability offers name to the solution: it writes cap_reg (with
// timeout_ms when timeout > 0, so the judge uses it as the deadline) and
// serves capability frames for name with h. Registering again replaces.
func (r *Runner) RegisterCapability(name string, h Handler, timeout time.Duration) error {
	r.mu.Lock()
	r.caps[name] = h
	r.mu.Unlock()
	if err := r.p.Send(frame.CapReg(name, timeout.Milliseconds())); err != nil {
		return fmt.Errorf("evaluator: register capability %s: %w", name, err)
	}
	return nil
}

// onFrame runs on the reading goroutine.
func (r *Runner) onFrame(f frame.Frame) {
	switch f.Type {
	case "capability":
		r.mu.Lock()
		h, ok := r.caps[f.Name]
		r.mu.Unlock()
		if !ok {
			r.p.Send(frame.Error(f.ID, codec.CodeNotFound, fmt.Sprintf("capability '%s' not registered", f.Name), ""))
			return
		}
		r.handlers.Add(1)
		go func() {
			defer r.handlers.Done()
			r.serveCapability(f, h)
		}()
	case "log":
		if r.opts.Log != nil {
			r.opts.Log(f.Stream, f.Data)
		} else {
			fmt.Fprint(os.Stderr, f.Data)
		}
	}
}

// onUndecodable runs on the reading goroutine for a frame the codec
// refused: a capability call (arguments with NaN, a duplicate key, ...) is
// answered Rejected with the codec's reason, in the Python evaluator's
// words, instead of leaving the solution to wait for CallTimeout.
func (r *Runner) onUndecodable(u frame.Undecodable) {
	if u.Type == "capability" {
		r.p.Send(frame.Error(u.ID, codec.CodeRejected, "undecodable capability: "+u.Message, ""))
	}
}

func (r *Runner) serveCapability(f frame.Frame, h Handler) {
	args, ok := f.Args.([]any)
	if !ok {
		r.p.Send(frame.Error(f.ID, codec.CodeRejected, "args is not a list", ""))
		return
	}
	v, err := callHandler(r.ctx, h, args)
	if err != nil {
		code := codec.CodeException
		if he, ok := err.(*HandlerError); ok {
			code = he.Code
		}
		r.p.Send(frame.Error(f.ID, code, cutCharacters(err.Error(), maxCapabilityMessage), ""))
		return
	}
	r.p.Answer(f.ID, v)
}

// callHandler turns a panic of h into an error.
func callHandler(ctx context.Context, h Handler, args []any) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return h(ctx, args)
}

// Close ends pending calls with ErrClosed, cancels the context given to
// capability handlers and waits for them, and stops reading (see
// peer.Close for os.Stdin). Safe to call twice.
func (r *Runner) Close() error {
	err := r.p.Close()
	r.cancel()
	r.handlers.Wait()
	return err
}

// maxCapabilityMessage is where a capability's exception message is cut
// (docs/protocol/judge.md: 1024 characters, as the Python SDK does).
const maxCapabilityMessage = 1024

// cutCharacters returns s cut to at most n characters (runes).
func cutCharacters(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
