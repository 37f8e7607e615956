package solution

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tether-dev/tether/codec"
	"github.com/tether-dev/tether/sdk/go/internal/frame"
	"github.com/tether-dev/tether/sdk/go/internal/peer"
)

// Func is a solution function. args are decoded transferable values; the
// returned value must be transferable. A returned error becomes an error
// frame with code Exception; a panic too, with the stack as trace.
type Func func(ctx context.Context, args []any) (any, error)

// Options of a Host; nil means defaults.
type Options struct {
	// Sequential runs calls one at a time in arrival order, like the Python
	// host: a call that overran its timeout delays the ones behind it. The
	// default runs every call in its own goroutine as soon as it arrives
	// (a goroutine that finished an earlier call, or a new one).
	Sequential bool
}

// Host is the solution side of the dual protocol. Register functions, then
// Serve. Register and CallCapability are safe for concurrent use, also from
// inside a running Func.
type Host struct {
	in   io.Reader
	out  io.Writer
	opts Options

	mu    sync.Mutex // guards funcs and p
	funcs map[string]Func
	p     *peer.Peer

	calls     chan frame.Frame // Sequential: the queue of the one worker
	idle      chan frame.Frame // default mode: hands a call to an idle worker (unbuffered)
	idleCount atomic.Int32
	idleMu    sync.Mutex     // guards closing idle against a late onFrame's send
	stopped   bool           // idle is closed; guarded by idleMu
	wg        sync.WaitGroup // running calls and idle workers
	ctx       context.Context
	stdio     *stdio // set by the package-level Serve: prints become logs
}

// New returns a Host over in and out.
func New(in io.Reader, out io.Writer, opts *Options) *Host {
	h := &Host{in: in, out: out, funcs: make(map[string]Func)}
	if opts != nil {
		h.opts = *opts
	}
	return h
}

var (
	stdOnce sync.Once
	stdHost *Host
)

// Default returns the process-wide Host over os.Stdin and os.Stdout.
func Default() *Host {
	stdOnce.Do(func() { stdHost = New(os.Stdin, os.Stdout, nil) })
	return stdHost
}

// Register makes fn callable as name on the Default host.
func Register(name string, fn Func) { Default().Register(name, fn) }

// Serve serves the Default host until stdin ends. On Linux it first moves
// the protocol to private descriptors and turns everything the program
// writes to stdout and stderr (fmt.Println, log, a child's output) into log
// frames, sent before the answer of the call that wrote them: printing can
// never corrupt the channel.
func Serve() error {
	h := Default()
	if s := isolateStdio(); s != nil {
		h.in, h.out, h.stdio = s.in, s.out, s
	}
	return h.Serve(context.Background())
}

// CallCapability calls a capability through the Default host.
func CallCapability(ctx context.Context, name string, args ...any) (any, error) {
	return Default().CallCapability(ctx, name, args...)
}

// Register makes fn callable as name; registering a name again replaces it.
func (h *Host) Register(name string, fn Func) {
	h.mu.Lock()
	h.funcs[name] = fn
	h.mu.Unlock()
}

// Serve writes ready, then serves calls until the input ends (stdin EOF: the
// judge's signal to exit) or ctx is cancelled; it then waits for running
// calls (their ctx is cancelled) and returns. Serve is called once.
func (h *Host) Serve(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	h.ctx = ctx
	h.idle = make(chan frame.Frame)
	if h.opts.Sequential {
		h.calls = make(chan frame.Frame, 1024)
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			for f := range h.calls {
				h.serveCall(f)
			}
		}()
	}
	p := peer.New(h.in, h.out, h.onFrame)
	p.OnUndecodable(func(u frame.Undecodable) { h.onUndecodable(p, u) })
	h.mu.Lock()
	h.p = p
	h.mu.Unlock()
	p.Start()
	if h.stdio != nil {
		done, exited := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(exited)
			h.stdio.pump(h, done)
		}()
		defer func() {
			close(done)
			<-exited
		}()
	}
	if err := p.Send(frame.Ready); err != nil {
		p.Close()
		h.stopWorkers(cancel)
		return fmt.Errorf("solution: write ready: %w", err)
	}
	select {
	case <-p.Done():
	case <-ctx.Done():
	}
	cancel()
	p.Close()
	<-p.Done()
	h.stopWorkers(cancel)
	return nil
}

func (h *Host) stopWorkers(cancel context.CancelFunc) {
	cancel()
	h.idleMu.Lock()
	h.stopped = true
	close(h.idle) // idle workers wake and exit
	if h.calls != nil {
		close(h.calls)
	}
	h.idleMu.Unlock()
	h.wg.Wait()
}

// onFrame runs on the reading goroutine.
func (h *Host) onFrame(f frame.Frame) {
	if f.Type != "call" || f.ID == "" { // a call without an id cannot be answered (the Python host ignores it too)
		return
	}
	h.idleMu.Lock()
	defer h.idleMu.Unlock()
	if h.stopped { // Serve is returning (the reader outlived a failed start): nobody would wait for the call
		return
	}
	if h.opts.Sequential {
		// Blocks reading when 1024 calls queue (back-pressure). Holding
		// idleMu meanwhile is safe: the one worker keeps draining h.calls,
		// and stopWorkers closes it only under idleMu.
		h.calls <- f
		return
	}
	select {
	case h.idle <- f: // a worker that finished its call takes it
	default:
		h.wg.Add(1)
		go h.worker(f)
	}
}

// onUndecodable runs on the reading goroutine for a frame the codec
// refused: a call (arguments with NaN, a duplicate key, ...) is answered
// Rejected with the codec's reason, as the Python host does, instead of
// leaving the evaluator to wait for CallTimeout.
func (h *Host) onUndecodable(p *peer.Peer, u frame.Undecodable) {
	if u.Type == "call" {
		p.Send(frame.Error(u.ID, codec.CodeRejected, u.Message, ""))
	}
}

// maxIdleWorkers is how many finished call goroutines wait for the next
// call instead of exiting: under a steady stream of calls, starting a
// goroutine per call then costs a channel hand-off, not a new stack.
const maxIdleWorkers = 64

// worker serves f, then further calls handed to it while it is idle, and
// exits when enough others are idle or Serve stops (stopWorkers closes
// h.idle, under idleMu so that a late onFrame cannot send on it). An idle
// worker waits on h.idle alone, not in a select with ctx: a plain receive
// is the cheaper wake-up, once per call.
func (h *Host) worker(f frame.Frame) {
	defer h.wg.Done()
	for {
		h.serveCall(f)
		if h.idleCount.Add(1) > maxIdleWorkers {
			h.idleCount.Add(-1)
			return
		}
		next, ok := <-h.idle
		if !ok {
			return
		}
		f = next
		h.idleCount.Add(-1)
	}
}

func (h *Host) serveCall(f frame.Frame) {
	h.mu.Lock()
	fn, ok := h.funcs[f.Fn]
	h.mu.Unlock()
	if !ok {
		h.p.Send(frame.Error(f.ID, codec.CodeNotFound, fmt.Sprintf("function '%s' not registered", f.Fn), ""))
		return
	}
	args, isList := f.Args.([]any)
	if !isList {
		h.p.Send(frame.Error(f.ID, codec.CodeRejected, "args is not a list", ""))
		return
	}
	result, trace, err := invoke(h.ctx, fn, args)
	if h.stdio != nil {
		h.stdio.drain(h) // what the call printed goes before its answer
	}
	if err != nil {
		h.p.Send(frame.Error(f.ID, codec.CodeException, err.Error(), trace))
		return
	}
	h.p.Answer(f.ID, result)
}

// invoke runs fn, turning a panic into an error with a sanitized stack:
// absolute paths are cut to file names, as docs/protocol/judge.md asks of traces.
func invoke(ctx context.Context, fn Func, args []any) (v any, trace string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
			trace = sanitizeStack(string(debug.Stack()))
		}
	}()
	v, err = fn(ctx, args)
	return v, "", err
}

func sanitizeStack(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if t := strings.TrimLeft(l, "\t"); strings.HasPrefix(t, "/") {
			lines[i] = "\t" + filepath.Base(t)
		}
	}
	return strings.Join(lines, "\n")
}

// CallCapability calls a capability the evaluator registered and waits for
// its value; errors match ErrCapabilityNotFound, ErrCapabilityRejected,
// ErrCapabilityTimeout, ErrCapability or ErrConnection. It may only be
// called while Serve runs.
func (h *Host) CallCapability(ctx context.Context, name string, args ...any) (any, error) {
	h.mu.Lock()
	p := h.p
	h.mu.Unlock()
	if p == nil {
		return nil, fmt.Errorf("solution: capability %s: host not serving: %w", name, ErrConnection)
	}
	resp, err := p.Ask(ctx, "capability", name, args, 0, ErrCapabilityRejected)
	if err != nil {
		return nil, fmt.Errorf("solution: capability %s: %w", name, err)
	}
	if resp.Type == "error" {
		return nil, &CapabilityError{Name: name, Code: resp.Code, Message: resp.Message, Trace: resp.Trace}
	}
	return resp.Value, nil
}

// Log sends a log frame (the judge keeps it in the result and forwards it
// to the evaluator). Stream and data that are not valid UTF-8 are sent
// with each bad run of bytes replaced by U+FFFD.
func (h *Host) Log(stream, data string) error {
	h.mu.Lock()
	p := h.p
	h.mu.Unlock()
	if p == nil {
		return fmt.Errorf("solution: log: host not serving: %w", ErrConnection)
	}
	return p.Send(frame.Log(stream, data))
}
