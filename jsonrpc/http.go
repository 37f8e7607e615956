package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/wire"
)

// HTTPHandler serves JSON-RPC over HTTP: each POST with Content-Type
// application/json carries one request or batch and gets its response as
// the body (204 No Content when it held only notifications). A client that
// sends "Accept: text/event-stream" gets a server-sent-event stream
// instead: every notification the handler sends while the request runs
// ($/progress) as one event, then the response as the last one. There is
// no way back to the client over HTTP, so a handler's calls to its peer
// fail with ErrNoBackChannel.
type HTTPHandler struct {
	opts    Options
	maxBody int64
	limit   *sharedLimit
	bodies  chan struct{} // a token per body being read or handled
	token   []byte        // nil: no credential needed
}

// NewHTTPHandler serves with opts (nil for the defaults); bodies over
// maxBody bytes (wire.DefaultMaxLine when <= 0) are answered with -32001.
// opts.MaxConcurrent and opts.MaxQueue bound the requests of all POSTs
// together: past them a request is answered -32000 server overloaded, and
// its body is not read. A body must arrive within opts.ReadTimeout, and
// the bytes of all bodies being read or handled are capped by
// opts.MaxPendingBytes (past it the slowest sender is cut off).
func NewHTTPHandler(opts *Options, maxBody int64) *HTTPHandler {
	h := &HTTPHandler{maxBody: maxBody, limit: newSharedLimit(opts)}
	if opts != nil {
		h.opts = *opts
	}
	if h.maxBody <= 0 {
		h.maxBody = wire.DefaultMaxLine
	}
	h.limit.pool = wire.NewPool(h.opts.MaxPendingBytes)
	h.bodies = make(chan struct{}, h.limit.max)
	if h.opts.Token != "" {
		h.token = []byte(h.opts.Token)
	}
	return h
}

// NewHTTPServer is an http.Server for h with the timeouts of opts: headers
// within ReadTimeout (and at most 64 KiB of them), keep-alive connections
// closed after IdleTimeout. It sets no write timeout, which would cut off
// a long request's event stream; bodies get their own deadline in h.
func NewHTTPServer(h http.Handler, opts *Options) *http.Server {
	var o Options
	if opts != nil {
		o = *opts
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: durationOr(o.ReadTimeout, defaultReadTimeout),
		IdleTimeout:       durationOr(o.IdleTimeout, defaultIdleTimeout),
		MaxHeaderBytes:    64 << 10,
	}
}

// readBody reads the body within ReadTimeout, growing its buffer as bytes
// arrive and charging them to hold.
func (h *HTTPHandler) readBody(w http.ResponseWriter, r *http.Request, hold *wire.Hold) ([]byte, error) {
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(durationOr(h.opts.ReadTimeout, defaultReadTimeout)))
	defer rc.SetReadDeadline(time.Time{})
	limit := h.maxBody + 1
	body := make([]byte, 0, min(max(r.ContentLength, 512), 64<<10, limit))
	if err := hold.Grow(int64(cap(body))); err != nil {
		return nil, err
	}
	src := io.LimitReader(r.Body, limit)
	for {
		if len(body) == cap(body) {
			if int64(len(body)) >= limit {
				return body, nil
			}
			grown := int(min(int64(2*cap(body)), limit))
			if err := hold.Grow(int64(grown - cap(body))); err != nil {
				return nil, err
			}
			body = append(make([]byte, 0, grown), body...)
		}
		n, err := src.Read(body[len(body):cap(body)])
		body = body[:len(body)+n]
		if err == io.EOF {
			return body, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "JSON-RPC takes POST", http.StatusMethodNotAllowed)
		return
	}
	if !checkHTTP(w, r, h.token, h.opts.AllowedHosts) {
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		http.Error(w, "Content-Type must be application/json", http.StatusUnsupportedMediaType)
		return
	}
	// A slot before the body: a flood of POSTs waits in the kernel, not in
	// this process's memory.
	select {
	case h.bodies <- struct{}{}:
		defer func() { <-h.bodies }()
	default:
		h.refuse(w, r)
		return
	}
	rc := http.NewResponseController(w)
	hold := h.limit.pool.Hold(func() { rc.SetReadDeadline(time.Unix(1, 0)) })
	defer hold.Close()
	body, err := h.readBody(w, r, hold)
	if err != nil {
		http.Error(w, "reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	hold.Settle()
	if int64(len(body)) > h.maxBody {
		id, kind := scanHead(body[:min(len(body), 512)])
		if kind != headRequest {
			id = nil
		}
		f := getFrame()
		f.errorResponse(id, ErrFrameTooLarge.withData("reason", fmt.Sprintf("body over %d bytes", h.maxBody)))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		w.Write(f.Bytes())
		putFrame(f)
		return
	}
	ch := &httpChannel{body: body, w: w, sse: acceptsEventStream(r)}
	opts := h.opts
	opts.Context = r.Context()
	if h.opts.Token != "" {
		opts.Context = context.WithValue(opts.Context, principalKey{}, httpPrincipal{})
	}
	conn := newConn(ch, &opts, ErrNoBackChannel, h.limit, nil)
	stop := context.AfterFunc(r.Context(), func() { conn.Close() })
	conn.Wait()
	stop()
	ch.finish()
}

// refuse answers a POST past the bounds with -32000, reading no more of
// its body than the head that may give the request's id.
func (h *HTTPHandler) refuse(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(durationOr(h.opts.ReadTimeout, defaultReadTimeout)))
	head := make([]byte, 512)
	n, _ := io.ReadFull(r.Body, head)
	rc.SetReadDeadline(time.Time{})
	id, kind := scanHead(head[:n])
	if kind != headRequest {
		id = nil
	}
	writeHTTPError(w, http.StatusOK, id, ErrOverloaded)
}

func writeHTTPError(w http.ResponseWriter, status int, id []byte, e *Error) {
	f := getFrame()
	f.errorResponse(id, e)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(f.Bytes())
	putFrame(f)
}

func acceptsEventStream(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && mt == "text/event-stream" {
			return true
		}
	}
	return false
}

// httpChannel gives the Conn the body as its only frame and collects what
// it writes: notifications become events (or are dropped without SSE), the
// response is kept for the body.
type httpChannel struct {
	body []byte
	read bool
	sse  bool
	w    http.ResponseWriter

	mu       sync.Mutex // protects the fields below
	started  bool       // SSE headers sent
	response []byte
	closed   bool
}

var errHTTPClosed = errors.New("jsonrpc: http request finished")

// ErrNoBackChannel is the error of a handler's call to its peer over HTTP,
// which has no way to carry a request to the client.
var ErrNoBackChannel = errors.New("jsonrpc: http: no way to send a request to the client")

func (c *httpChannel) Read() ([]byte, error) {
	if c.read {
		return nil, io.EOF
	}
	c.read = true
	return c.body, nil
}

func (c *httpChannel) Write(frame []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errHTTPClosed
	}
	isResponse := frame[0] == '[' || objectMember(frame, "method") == nil
	if !isResponse && objectMember(frame, "id") != nil {
		return ErrNoBackChannel
	}
	if isResponse {
		c.response = append(c.response[:0], frame...)
		if !c.sse {
			return nil
		}
	} else if !c.sse {
		return nil // no stream to carry notifications
	}
	if !c.started {
		c.started = true
		c.w.Header().Set("Content-Type", "text/event-stream")
		c.w.Header().Set("Cache-Control", "no-cache")
		c.w.WriteHeader(http.StatusOK)
	}
	if _, err := fmt.Fprintf(c.w, "event: message\ndata: %s\n\n", frame); err != nil {
		return err
	}
	if fl, ok := c.w.(http.Flusher); ok {
		fl.Flush()
	}
	return nil
}

func (c *httpChannel) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return nil
}

// finish writes the plain response once the Conn has stopped.
func (c *httpChannel) finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.started {
		return
	}
	if c.response == nil {
		c.w.WriteHeader(http.StatusNoContent)
		return
	}
	c.w.Header().Set("Content-Type", "application/json")
	c.w.Write(c.response)
}
