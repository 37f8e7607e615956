package jsonrpc

import (
	"context"
	"errors"
	"sync"
	"time"
)

var (
	errCanceledByPeer  = errors.New("jsonrpc: request cancelled by the peer ($/cancelRequest)")
	errCanceledByClose = errors.New("jsonrpc: connection closed")
	errNoProgressToken = errors.New("jsonrpc: progress: the request is a notification and has no progressToken")
	errParamsShape     = errors.New("jsonrpc: params must encode as a JSON array or object")
)

// inflight is one incoming request from the moment it is read until it is
// answered. It is also the handler's context: this saves the two
// allocations of context.WithCancel and context.WithValue per request.
// Values are looked up in the connection's base context.
type inflight struct {
	conn  *Conn
	req   Request
	key   idKey
	batch *batchCollector
	buf   []byte // owns req.Params and req.ID

	progressToken []byte
	traceID       string

	mu   sync.Mutex // protects the fields below
	done chan struct{}
	err  error
}

type connKey struct{}

func (in *inflight) Deadline() (time.Time, bool) { return in.conn.base.Deadline() }

func (in *inflight) Done() <-chan struct{} {
	in.conn.handOff() // if it runs inline: a handler that waits for cancellation needs the reader
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.done == nil {
		in.done = make(chan struct{})
		if in.err != nil {
			close(in.done)
		}
	}
	return in.done
}

func (in *inflight) Err() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.err != nil {
		return context.Canceled
	}
	return nil
}

func (in *inflight) Value(key any) any {
	if key == (connKey{}) {
		return in
	}
	return in.conn.base.Value(key)
}

// cancel stops the handler's context with a cause; it is idempotent.
func (in *inflight) cancel(cause error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.err != nil {
		return
	}
	in.err = cause
	if in.done != nil {
		close(in.done)
	}
}

func (in *inflight) cause() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.err
}

func fromContext(ctx context.Context) *inflight {
	in, _ := ctx.Value(connKey{}).(*inflight)
	return in
}

// ConnFrom returns the connection a handler's request came in on, so the
// handler can call or notify its peer; nil outside a handler.
func ConnFrom(ctx context.Context) *Conn {
	if in := fromContext(ctx); in != nil {
		return in.conn
	}
	return nil
}

// RequestFrom returns the request a handler is answering; nil outside a
// handler. Its Params and ID are valid until the handler returns.
func RequestFrom(ctx context.Context) *Request {
	if in := fromContext(ctx); in != nil {
		return &in.req
	}
	return nil
}

// CancelCause says why a handler's context was cancelled: the peer's
// $/cancelRequest or the connection closing. nil while it is not cancelled.
func CancelCause(ctx context.Context) error {
	if in := fromContext(ctx); in != nil {
		return in.cause()
	}
	return context.Cause(ctx)
}

// TraceID returns the trace id the peer sent in params._meta.traceId (or the
// trace-id field of params._meta.traceparent); "" if none.
func TraceID(ctx context.Context) string {
	if in := fromContext(ctx); in != nil {
		return in.traceID
	}
	return ""
}

// Progress sends {"method":"$/progress","params":{"token":T,"value":value}}
// to the peer of the request ctx belongs to. T is the request's
// params._meta.progressToken, else its id. It may be called from any
// goroutine while the request is in flight.
func Progress(ctx context.Context, value any) error {
	in := fromContext(ctx)
	if in == nil {
		return errors.New("jsonrpc: progress: context is not a request's")
	}
	token := in.progressToken
	if token == nil {
		token = in.req.ID
	}
	if token == nil {
		return errNoProgressToken
	}
	return in.conn.Notify(ctx, "$/progress", progressParams{token: token, value: value})
}

// progressParams encodes {"token":T,"value":V} with T's bytes as received.
type progressParams struct {
	token []byte
	value any
}

func (p progressParams) MarshalJSON() ([]byte, error) {
	f := getFrame()
	defer putFrame(f)
	f.WriteString(`{"token":`)
	f.Write(p.token)
	f.WriteString(`,"value":`)
	if err := f.value(p.value); err != nil {
		return nil, err
	}
	f.WriteByte('}')
	return append([]byte(nil), f.Bytes()...), nil
}
