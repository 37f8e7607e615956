package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
)

// Request is one incoming request or notification as a handler sees it.
//
// Params and ID point into a buffer the connection reuses: they are valid
// until the handler returns. Copy them to keep them longer.
type Request struct {
	Method string
	Params json.RawMessage // nil when the request has no params
	ID     json.RawMessage // the id exactly as sent; nil for a notification
}

// IsNotification reports whether the request expects no answer.
func (r *Request) IsNotification() bool { return r.ID == nil }

// UnmarshalParams decodes the params into v. Absent params leave v as it
// is. A failure is an *InvalidParamsError, answered with -32602.
func (r *Request) UnmarshalParams(v any) error {
	if r.Params == nil {
		return nil
	}
	if err := json.Unmarshal(r.Params, v); err != nil {
		return &InvalidParamsError{Method: r.Method, Err: paramsError(err)}
	}
	return nil
}

// Handler answers requests. Handle is called concurrently from the
// connection's goroutines (at most Options.MaxConcurrent at once).
// The result is encoded with encoding/json (a json.RawMessage goes out as
// it is); for a notification it is dropped. ctx is cancelled when the peer
// sends $/cancelRequest for this request or the connection closes; it also
// carries the connection (ConnFrom), the progress token (Progress) and the
// trace id (TraceID).
type Handler interface {
	Handle(ctx context.Context, req *Request) (any, error)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

// Mux routes requests to handlers by method name (case-sensitive). Register
// every method before the first connection uses the Mux: after that it is
// only read, which is safe from any number of goroutines.
type Mux struct {
	methods map[string]Handler
	docs    map[string]MethodDoc // for rpc.discover (openrpc.go)
}

// NewMux returns an empty Mux.
func NewMux() *Mux { return &Mux{methods: make(map[string]Handler), docs: make(map[string]MethodDoc)} }

// Add registers h for method, replacing any earlier handler.
func (m *Mux) Add(method string, h Handler) { m.methods[method] = h }

// AddFunc registers f for method.
func (m *Mux) AddFunc(method string, f func(ctx context.Context, req *Request) (any, error)) {
	m.methods[method] = HandlerFunc(f)
}

// Methods lists the registered method names, in no particular order.
func (m *Mux) Methods() []string {
	names := make([]string, 0, len(m.methods))
	for name := range m.methods {
		names = append(names, name)
	}
	return names
}

// Handle dispatches req; an unknown method is ErrMethodNotFound.
func (m *Mux) Handle(ctx context.Context, req *Request) (any, error) {
	h, ok := m.methods[req.Method]
	if !ok {
		return nil, ErrMethodNotFound
	}
	return h.Handle(ctx, req)
}

// Register adds a typed handler: params are decoded into P (absent params
// give P's zero value) and a decoding failure is answered with -32602
// Invalid params before fn runs.
func Register[P, R any](m *Mux, method string, fn func(ctx context.Context, params P) (R, error)) {
	m.docs[method] = MethodDoc{Params: reflect.TypeFor[P](), Result: reflect.TypeFor[R]()}
	m.Add(method, HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		var p P
		if err := req.UnmarshalParams(&p); err != nil {
			return nil, err
		}
		r, err := fn(ctx, p)
		if err != nil {
			var ipe *InvalidParamsError
			if errors.As(err, &ipe) && ipe.Method == "" {
				ipe.Method = method
			}
			return nil, err
		}
		return r, nil
	}))
}
