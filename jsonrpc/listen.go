package jsonrpc

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"

	"github.com/tether-dev/tether/internal/accept"
	"github.com/tether-dev/tether/wire"
)

// Framing makes a Channel of a byte stream.
type Framing func(r io.Reader, w io.Writer) Channel

// LineFraming is newline-delimited JSON with a per-line cap (see NDJSON).
func LineFraming(maxLine int) Framing {
	return func(r io.Reader, w io.Writer) Channel { return NDJSON(r, w, maxLine) }
}

// LengthFraming is 4-byte length-prefixed JSON with a cap (see LengthPrefixed).
func LengthFraming(maxFrame int) Framing {
	return func(r io.Reader, w io.Writer) Channel { return LengthPrefixed(r, w, maxFrame) }
}

// Serve accepts connections on l (TCP or Unix) and runs one Conn with opts
// on each, until ctx is done or Accept fails. opts.MaxConcurrent and
// opts.MaxQueue bound the requests of all the connections together (as
// NewHTTPHandler does for its POSTs): past them a request is answered
// -32000 server overloaded, however many clients connect.
//
// Serve is built to face clients it does not trust: out of file
// descriptors it waits and accepts again; past opts.MaxConns it closes a
// new connection at once; a connection idle past opts.IdleTimeout (with
// nothing running), a message not whole within opts.ReadTimeout and a
// write not done within opts.WriteTimeout end their connection; the bytes
// of messages being read and of requests not yet answered are capped by
// opts.MaxPendingBytes across all connections (past it the slowest sender
// is closed, or a request is answered -32000); with opts.Token a
// connection must call rpc.authenticate first. Before returning
// Serve closes l and every connection and waits for them; it returns nil
// when ctx ended it, else the Accept error.
func Serve(ctx context.Context, l net.Listener, framing Framing, opts *Options) error {
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		conns  = make(map[*Conn]struct{})
		shared = newSharedLimit(opts)
		o      Options
	)
	if opts != nil {
		o = *opts
	}
	pool := wire.NewPool(o.MaxPendingBytes)
	shared.pool = pool
	// Out of file descriptors, Accept waits and tries again, and past
	// MaxConns a connection is closed at once: a flood cannot end Serve.
	l = accept.New(l, opts.maxConns())
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	var acceptErr error
	for {
		nc, err := l.Accept()
		if err != nil {
			if ctx.Err() == nil {
				acceptErr = err
			}
			break
		}
		g := &guardedConn{Conn: nc, idle: durationOr(o.IdleTimeout, defaultIdleTimeout),
			read: durationOr(o.ReadTimeout, defaultReadTimeout), write: durationOr(o.WriteTimeout, defaultWriteTimeout)}
		ch := framing(g, g)
		var hold *wire.Hold
		if hc, ok := ch.(heldChannel); ok {
			hold = pool.Hold(func() { nc.Close() })
			hc.setHold(hold)
			g.partial = hc.partial
		}
		c := newConn(ch, opts, nil, shared, []byte(o.Token))
		g.conn.Store(c)
		mu.Lock()
		conns[c] = struct{}{}
		mu.Unlock()
		wg.Go(func() {
			<-c.Done()
			hold.Close()
			mu.Lock()
			delete(conns, c)
			mu.Unlock()
		})
	}
	l.Close()
	mu.Lock()
	open := make([]*Conn, 0, len(conns))
	for c := range conns {
		open = append(open, c)
	}
	mu.Unlock()
	for _, c := range open {
		c.Close()
	}
	wg.Wait()
	if errors.Is(acceptErr, net.ErrClosed) {
		return nil
	}
	return acceptErr
}
