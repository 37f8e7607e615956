package lm

import (
	"context"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tether-dev/tether/internal/accept"
	"github.com/tether-dev/tether/wire"
)

// Options configure a Server. A nil *Options or a zero field means the default.
type Options struct {
	MaxFrame         int           // request and response payload cap; default wire.DefaultMaxFrame (64 MiB)
	IdleTimeout      time.Duration // wait for the next request on a connection; default 5 min
	ReadTimeout      time.Duration // read one frame once its first byte arrived; default 30 s
	WriteTimeout     time.Duration // write one response; default 30 s
	MaxInFlight      int           // backend calls in flight across all connections; default 16
	BatchConcurrency int           // prompts of one batch in flight; default 16
	MaxConns         int           // connections open at once; past it a new one is closed; default 1024
	// MaxPendingBytes caps the bytes held for requests not yet read whole,
	// across all connections; past it the slowest sender is closed.
	// Default wire.DefaultPoolBytes.
	MaxPendingBytes int64
	Budget          Budget // zero: unlimited
	// InsecureNoAuth serves TCP listeners without checking who connects:
	// a non-loopback address, or a system where a peer's uid cannot be
	// found, is otherwise refused by Serve (see CheckPeers).
	InsecureNoAuth bool
	// Observe, if set, is told about each prompt answered or failed after
	// routing (a trace of the run); it is called from the connections'
	// goroutines, possibly at once, and must return quickly.
	Observe func(CompletionRecord)
	// ConnDone, if set, is called once per connection after it closed with
	// the usage of its requests; it runs on the connection's goroutine.
	ConnDone func(remote string, usage UsageSummary)
}

func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	if v.MaxFrame <= 0 {
		v.MaxFrame = wire.DefaultMaxFrame
	}
	if v.IdleTimeout <= 0 {
		v.IdleTimeout = 5 * time.Minute
	}
	if v.ReadTimeout <= 0 {
		v.ReadTimeout = 30 * time.Second
	}
	if v.WriteTimeout <= 0 {
		v.WriteTimeout = 30 * time.Second
	}
	if v.MaxInFlight <= 0 {
		v.MaxInFlight = 16
	}
	if v.BatchConcurrency <= 0 {
		v.BatchConcurrency = 16
	}
	return v
}

// Server is an LM handler: it answers rlm LMRequests on any number of
// listeners. Serve, Close and Usage are safe for concurrent use.
//
// Every goroutine a Server starts (one per connection, and up to
// BatchConcurrency per batch) is waited for by Close.
type Server struct {
	router   *Router
	opts     Options
	spend    spend
	meter    Meter         // handler-wide usage
	inFlight chan struct{} // handler-wide backend call slots
	pending  *wire.Pool    // bytes of requests being read
	refused  atomic.Int64  // connections whose peer was not let in
	peers    *sockDiag     // finds a loopback peer's uid; closed by Close
	uid      uint32        // the server's own uid, let in with root

	ctx    context.Context // cancelled by Close: stops backend calls
	cancel context.CancelFunc

	mu     sync.Mutex             // guards the fields below
	open   map[io.Closer]struct{} // listeners and connections, closed by Close
	closed bool
	wg     sync.WaitGroup // Serve loops and connections
}

// NewServer returns a server that routes requests with router.
func NewServer(router *Router, opts *Options) *Server {
	o := opts.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{
		router:   router,
		opts:     o,
		spend:    spend{limit: o.Budget},
		inFlight: make(chan struct{}, o.MaxInFlight),
		pending:  wire.NewPool(o.MaxPendingBytes),
		peers:    newSockDiag(),
		uid:      uint32(os.Getuid()),
		ctx:      ctx,
		cancel:   cancel,
		open:     make(map[io.Closer]struct{}),
	}
}

// Serve accepts connections on ln until Close, then returns ErrServerClosed;
// any other accept error is returned as is. Serve closes ln.
//
// On a loopback TCP listener only connections from the server's own uid
// or root are served; a TCP listener where that cannot be checked is
// refused at once unless Options.InsecureNoAuth (see CheckPeers).
func (s *Server) Serve(ln net.Listener) error {
	guard, err := s.guarded(ln)
	if err != nil {
		ln.Close()
		return err
	}
	// Out of file descriptors, Accept waits and tries again, and past
	// MaxConns a connection is closed at once: a flood cannot end the server.
	guarded := accept.New(ln, s.opts.MaxConns)
	if !s.add(guarded) {
		guarded.Close()
		return ErrServerClosed
	}
	defer s.done(guarded)
	for {
		c, err := guarded.Accept()
		if err != nil {
			if s.isClosed() {
				return ErrServerClosed
			}
			return err
		}
		if !s.add(c) {
			c.Close()
			return ErrServerClosed
		}
		go s.serveConn(c, guard)
	}
}

// Usage is the handler-wide usage so far.
func (s *Server) Usage() UsageSummary { return s.meter.Summary() }

// Close stops the listeners, cancels backend calls in flight, closes every
// connection and waits for all goroutines. It is safe to call more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		// Listeners and connections first, so a call cut short by the
		// cancel below has nowhere to send a half-meant answer.
		for x := range s.open {
			x.Close()
		}
		s.cancel()
	}
	s.mu.Unlock()
	s.wg.Wait()
	s.peers.close()
	return nil
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// add registers x, a listener or a connection, for Close to close, and
// its goroutine for Close to wait for; false once the server is closed.
func (s *Server) add(x io.Closer) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.open[x] = struct{}{}
	s.wg.Add(1)
	return true
}

// done closes x and forgets it: its goroutine is ending.
func (s *Server) done(x io.Closer) {
	s.mu.Lock()
	delete(s.open, x)
	s.mu.Unlock()
	x.Close()
	s.wg.Done()
}
