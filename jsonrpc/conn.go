package jsonrpc

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tether-dev/tether/wire"
)

// Options configure a connection. A nil *Options means the defaults.
type Options struct {
	// Handler answers the peer's requests and notifications. nil answers
	// every request with -32601 Method not found.
	Handler Handler
	// MaxConcurrent bounds the handlers running at once (default 64).
	// Both bounds are per Conn; an HTTPHandler applies them to all its
	// POSTs together and Serve to all its connections together.
	MaxConcurrent int
	// MaxQueue bounds the requests waiting for a free handler (default
	// 256). A request past both bounds is answered with -32000 server
	// overloaded; a notification past them is dropped and logged.
	MaxQueue int
	// Logger receives what cannot be answered (bad responses, dropped
	// notifications, failed writes). nil discards.
	Logger *slog.Logger
	// Token, when not empty, is the credential a client must present: on
	// a connection of Serve, by calling rpc.authenticate {"token": Token}
	// before anything else (other requests are answered -32004, and a
	// wrong token closes the connection); over HTTP, as "Authorization:
	// Bearer Token" on every POST (else 401).
	Token string
	// AllowedHosts, when not nil, are the only Host names an HTTPHandler
	// answers (421 otherwise): on a loopback address, the names of
	// loopback, so a web page cannot reach the server by rebinding its
	// own name to 127.0.0.1.
	AllowedHosts []string
	// MaxConns caps the connections Serve keeps open (default 1024); past
	// it a new connection is closed at once.
	MaxConns int
	// MaxPendingBytes caps the bytes Serve and an HTTPHandler hold for
	// messages not yet read whole, across all connections (default
	// wire.DefaultPoolBytes); past it the slowest sender is closed.
	MaxPendingBytes int64
	// IdleTimeout closes a connection of Serve (or an HTTP keep-alive
	// connection) that sends nothing for this long while none of its
	// requests runs (default 5 min); ReadTimeout bounds reading one
	// message once it has begun, an HTTP request's headers and its body
	// each (default 30 s); WriteTimeout bounds one write of Serve
	// (default 30 s).
	IdleTimeout, ReadTimeout, WriteTimeout time.Duration
	// Context is the parent of every handler's context for values (trace
	// exporters, loggers) and deadline; cancelling it does not close the
	// connection. nil means context.Background().
	Context context.Context
}

func (o *Options) maxConns() int {
	if o == nil {
		return 0
	}
	return o.MaxConns
}

const (
	defaultMaxConcurrent = 64
	defaultMaxQueue      = 256
)

// Conn is one JSON-RPC 2.0 peer: it answers the other side's requests with
// its Handler and sends its own calls and notifications on the same Channel.
//
// One goroutine reads: it parses every frame, routes responses to waiting
// calls, handles $/cancelRequest, answers malformed input, and queues
// requests for the handler goroutines. Because it never waits for a
// handler, a handler may call back into the peer and wait for the answer
// without deadlock. Handler goroutines (at most MaxConcurrent) are started
// on demand and live until the connection stops. A request that arrives
// alone runs on the reader instead, which hands reading to a new goroutine
// if the handler calls its peer, waits on its context, or runs on for a
// millisecond or two (inline.go).
//
// The reader writes the answers to malformed input and the -32000 / -32001
// errors itself; a peer that stops reading therefore also stops this side
// reading once the pipe is full, and nothing grows without bound.
//
// All methods are safe for concurrent use. Close and Wait wait for every
// goroutine the Conn started; do not call them from a handler.
type Conn struct {
	ch      Channel
	handler Handler
	log     *slog.Logger
	base    context.Context

	work        chan *inflight // queued requests; only the reader sends and closes it
	idle        atomic.Int32   // handler goroutines waiting for work and not yet claimed
	workers     int            // handler goroutines started; reader only (whichever goroutine reads)
	maxWorkers  int
	outstanding atomic.Int32 // requests running or queued
	maxOutstand int32
	shared      *sharedLimit  // nil, or the bounds this Conn shares with others
	slots       chan struct{} // a token per handler running (MaxConcurrent) while one runs inline (inline.go)
	workerWG    sync.WaitGroup
	sole        soleChannel // nil, or ch if it can serve requests inline
	inl         inliner     // running a lone request on the reader (inline.go)

	token   []byte            // nil, or the token rpc.authenticate must give
	authed  bool              // rpc.authenticate succeeded; reader only
	methods map[string]string // interned method names; reader only
	scratch []envelope        // reader only

	mu       sync.Mutex // protects the fields below
	nextID   int64
	pending  map[int64]*waiter
	inflight map[idKey]*inflight    // requests read and not yet answered, by id
	running  map[*inflight]struct{} // handlers running now, notifications included
	stopped  bool                   // the reader has stopped: no response can arrive
	stopErr  error                  // why reading stopped (nil for a clean end of stream)
	closing  bool

	callErr   error // set once by newConn, then read-only
	closeOnce sync.Once
	done      chan struct{} // closed when every goroutine has stopped
}

// NewConn starts a peer on ch and returns at once; the Conn owns ch and
// closes it when it stops.
func NewConn(ch Channel, opts *Options) *Conn { return newConn(ch, opts, nil, nil, nil) }

// newConn starts a Conn; a non-nil callErr makes every outgoing call fail
// with it (a transport with no way to carry requests to the peer). A non-nil
// shared bounds the requests running and queued across every Conn given it,
// on top of the Conn's own bounds.
//
// A non-nil token must be given by rpc.authenticate before any request.
func newConn(ch Channel, opts *Options, callErr error, shared *sharedLimit, token []byte) *Conn {
	if opts == nil {
		opts = &Options{}
	}
	c := &Conn{
		ch:         ch,
		handler:    opts.Handler,
		log:        opts.Logger,
		base:       opts.Context,
		maxWorkers: opts.MaxConcurrent,
		methods:    make(map[string]string),
		pending:    make(map[int64]*waiter),
		inflight:   make(map[idKey]*inflight),
		running:    make(map[*inflight]struct{}),
		done:       make(chan struct{}),
		callErr:    callErr,
		shared:     shared,
	}
	if len(token) > 0 {
		c.token = token
	}
	if c.handler == nil {
		c.handler = NewMux()
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.base == nil {
		c.base = context.Background()
	}
	if c.maxWorkers <= 0 {
		c.maxWorkers = defaultMaxConcurrent
	}
	queue := opts.MaxQueue
	if queue <= 0 {
		queue = defaultMaxQueue
	}
	c.maxOutstand = int32(c.maxWorkers + queue)
	c.work = make(chan *inflight, c.maxWorkers+queue)
	c.slots = make(chan struct{}, c.maxWorkers)
	c.sole, _ = ch.(soleChannel)
	go c.readLoop()
	return c
}

// sharedLimit bounds the requests of several Conns together: HTTP serves
// each POST with its own Conn and Serve each accepted connection, and
// MaxConcurrent and MaxQueue bound the server, not one POST or connection.
type sharedLimit struct {
	outstanding atomic.Int32  // requests running or queued, across the Conns
	max         int32         // MaxConcurrent + MaxQueue
	slots       chan struct{} // a token per handler running (MaxConcurrent)
	// pool, when not nil, also holds the bytes of every request admitted
	// until it is answered, so the requests queued and running cannot
	// take more memory than the readers may (nil: unbounded).
	pool *wire.Pool
}

func newSharedLimit(opts *Options) *sharedLimit {
	running, queue := defaultMaxConcurrent, defaultMaxQueue
	if opts != nil && opts.MaxConcurrent > 0 {
		running = opts.MaxConcurrent
	}
	if opts != nil && opts.MaxQueue > 0 {
		queue = opts.MaxQueue
	}
	return &sharedLimit{max: int32(running + queue), slots: make(chan struct{}, running)}
}

// admit counts one more request running or queued, holding size bytes
// until it is answered, or says it is over a bound (and counts nothing).
func (c *Conn) admit(size int64) bool {
	if c.outstanding.Add(1) > c.maxOutstand {
		c.outstanding.Add(-1)
		return false
	}
	if s := c.shared; s != nil && s.outstanding.Add(1) > s.max {
		s.outstanding.Add(-1)
		c.outstanding.Add(-1)
		return false
	}
	if s := c.shared; s != nil && !s.pool.Take(size) {
		s.outstanding.Add(-1)
		c.outstanding.Add(-1)
		return false
	}
	return true
}

// release counts a request admitted by admit as finished.
func (c *Conn) release(size int64) {
	c.outstanding.Add(-1)
	if c.shared != nil {
		c.shared.outstanding.Add(-1)
		c.shared.pool.Give(size)
	}
}

// Close cancels every running handler's context, closes the channel (which
// ends reading) and waits until the handlers have returned. Calls still
// waiting fail with ErrClosed. Close is safe to call more than once.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closing = true
		for in := range c.running {
			in.cancel(errCanceledByClose)
		}
		c.mu.Unlock()
		c.ch.Close()
	})
	<-c.done
	return nil
}

// Wait blocks until the connection has stopped: the peer ended the stream
// (nil), Close was called (nil), or reading failed (that error). Requests
// already read are answered before it returns.
func (c *Conn) Wait() error {
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopErr
}

// Done is closed when the connection has stopped.
func (c *Conn) Done() <-chan struct{} { return c.done }

// readLoop reads until the stream ends, then waits for the handlers and
// stops the Conn; or, handed off (inline.go), returns once its handler has.
func (c *Conn) readLoop() {
	err := c.readFrames()
	if err == errHandedOff {
		c.workerWG.Done()
		return
	}
	c.mu.Lock()
	if c.closing || errors.Is(err, io.EOF) {
		err = nil
	}
	c.stopped, c.stopErr = true, err
	pending := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, w := range pending {
		w.fail(ErrClosed)
	}
	close(c.work)
	c.workerWG.Wait()
	c.stopInline()
	c.ch.Close()
	close(c.done)
}

// errHandedOff ends readFrames on a reader that ran a handler inline while
// another goroutine took over reading.
var errHandedOff = errors.New("jsonrpc: reading handed off")

// readFrames reads until the stream ends or fails.
func (c *Conn) readFrames() error {
	for {
		frame, err := c.ch.Read()
		if err != nil {
			if errors.Is(err, wire.ErrTooLarge) {
				if head, skipped := skippedHead(err); skipped {
					c.oversize(err, head)
					continue
				}
				c.writeError(nil, ErrFrameTooLarge.withData("reason", err.Error()))
			}
			return err
		}
		c.handleFrame(frame)
		if c.inl.next != nil && !c.runInline() {
			return errHandedOff
		}
	}
}

func (c *Conn) write(frame []byte) {
	if err := c.ch.Write(frame); err != nil {
		c.log.Warn("jsonrpc: write failed", "err", err)
	}
}

// writeAlone writes the answer to a request run inline: nothing else is in
// flight, so it goes at once.
func (c *Conn) writeAlone(frame []byte) {
	if err := c.sole.writeNow(frame); err != nil {
		c.log.Warn("jsonrpc: write failed", "err", err)
	}
}

// writeError answers with an error response; id nil means null.
func (c *Conn) writeError(id []byte, e *Error) {
	f := getFrame()
	f.errorResponse(id, e)
	c.write(f.Bytes())
	putFrame(f)
}

// withData returns a copy of e with a data object built from pairs.
func (e *Error) withData(pairs ...string) *Error {
	return &Error{Code: e.Code, Message: e.Message, Data: errorData(pairs...)}
}
