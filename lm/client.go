package lm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/tether-dev/tether/wire"
)

// ClientOptions configure a Client. A nil *ClientOptions means the defaults.
type ClientOptions struct {
	Timeout  time.Duration // per request, dial to response; default 300 s (rlm's)
	MaxFrame int           // response payload cap; default wire.DefaultMaxFrame
	Depth    int           // depth written in every request
	// KeepAlive keeps connections open for later requests. Without it every
	// request has its own connection, as rlm's clients do. With it, a server
	// that closed an idle connection (rlm's handler closes after one
	// request) is dialled again once, transparently.
	KeepAlive bool
}

// Client talks to an LM handler (tether's or rlm's). It is safe for
// concurrent use; each request in flight has a connection of its own.
type Client struct {
	network, address string
	opts             ClientOptions

	mu     sync.Mutex // guards idle and closed
	idle   []*clientConn
	closed bool
}

type clientConn struct {
	net.Conn
	fr *wire.FrameReader
	fw *wire.FrameWriter
}

// NewClient returns a client of the handler at addr ("HOST:PORT" or
// "unix:PATH"). It does not dial until the first request.
func NewClient(addr string, opts *ClientOptions) (*Client, error) {
	network, address, err := ParseAddr(addr)
	if err != nil {
		return nil, err
	}
	var o ClientOptions
	if opts != nil {
		o = *opts
	}
	if o.Timeout <= 0 {
		o.Timeout = 300 * time.Second
	}
	if o.MaxFrame <= 0 {
		o.MaxFrame = wire.DefaultMaxFrame
	}
	return &Client{network: network, address: address, opts: o}, nil
}

// Close closes idle connections; requests in flight finish on theirs.
func (c *Client) Close() error {
	c.mu.Lock()
	idle := c.idle
	c.idle, c.closed = nil, true
	c.mu.Unlock()
	for _, cc := range idle {
		cc.Close()
	}
	return nil
}

// Query asks for one completion of a text prompt. An error response is a
// *RemoteError (errors.Is(err, ErrRemote)).
func (c *Client) Query(ctx context.Context, prompt, model string) (*Completion, error) {
	raw, _ := json.Marshal(prompt)
	resp, err := c.Do(ctx, &Request{Prompt: raw, Model: model, Depth: c.opts.Depth})
	if err != nil {
		return nil, err
	}
	if resp.ChatCompletion == nil {
		return nil, fmt.Errorf("lm: response to a single prompt has no chat_completion")
	}
	return resp.ChatCompletion, nil
}

// QueryBatch asks for one completion per prompt. The completions are
// returned in order even when some prompts failed; the error then joins one
// *SlotError per failed prompt.
func (c *Client) QueryBatch(ctx context.Context, prompts []string, model string) ([]Completion, error) {
	req := &Request{Prompts: make([]json.RawMessage, len(prompts)), Model: model, Depth: c.opts.Depth}
	for i, p := range prompts {
		req.Prompts[i], _ = json.Marshal(p)
	}
	resp, err := c.Do(ctx, req)
	if err != nil {
		return nil, err
	}
	if len(resp.ChatCompletions) != len(prompts) {
		return nil, fmt.Errorf("lm: batch of %d prompts answered with %d completions", len(prompts), len(resp.ChatCompletions))
	}
	var errs []error
	for i, cc := range resp.ChatCompletions {
		if cc.Error != "" {
			errs = append(errs, &SlotError{Index: i, Message: cc.Error})
		}
	}
	return resp.ChatCompletions, errors.Join(errs...)
}

// Do sends req and returns the handler's response; an error response is
// returned as a *RemoteError, not as a Response.
func (c *Client) Do(ctx context.Context, req *Request) (*Response, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("lm: encoding request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	cc, reused, err := c.conn(ctx)
	if err != nil {
		return nil, err
	}
	payload, err := c.roundTrip(ctx, cc, body)
	if err != nil && reused && ctx.Err() == nil && isStaleConn(err) {
		cc, _, err = c.dial(ctx)
		if err != nil {
			return nil, err
		}
		payload, err = c.roundTrip(ctx, cc, body)
	}
	if err != nil {
		cc.Close()
		return nil, fmt.Errorf("lm: request to %s: %w", c.address, err)
	}
	var resp Response
	if err := json.Unmarshal(payload, &resp); err != nil {
		cc.Close()
		return nil, fmt.Errorf("lm: response from %s: %w", c.address, err)
	}
	c.release(cc)
	if resp.Error != nil {
		return nil, &RemoteError{Message: *resp.Error}
	}
	return &resp, nil
}

// isStaleConn reports a connection the server closed while it sat idle.
func isStaleConn(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		isConnReset(err)
}

func (c *Client) roundTrip(ctx context.Context, cc *clientConn, body []byte) ([]byte, error) {
	// Only the context ends a round trip, so a timeout always reads as ctx.Err().
	stop := context.AfterFunc(ctx, func() { cc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if err := cc.fw.WriteFrame(body); err != nil {
		return nil, ctxErr(ctx, err)
	}
	payload, err := cc.fr.ReadFrame()
	if err != nil {
		return nil, ctxErr(ctx, err)
	}
	return payload, nil
}

func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return err
}

func (c *Client) conn(ctx context.Context) (*clientConn, bool, error) {
	c.mu.Lock()
	if n := len(c.idle); n > 0 {
		cc := c.idle[n-1]
		c.idle = c.idle[:n-1]
		c.mu.Unlock()
		return cc, true, nil
	}
	c.mu.Unlock()
	return c.dial(ctx)
}

func (c *Client) dial(ctx context.Context) (*clientConn, bool, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, c.network, c.address)
	if err != nil {
		return nil, false, fmt.Errorf("lm: %w", err)
	}
	return &clientConn{Conn: conn, fr: wire.NewFrameReader(conn, c.opts.MaxFrame), fw: wire.NewFrameWriter(conn, c.opts.MaxFrame)}, false, nil
}

// release keeps a healthy connection for reuse, or closes it.
func (c *Client) release(cc *clientConn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.opts.KeepAlive || c.closed {
		cc.Close()
		return
	}
	cc.SetDeadline(time.Time{})
	c.idle = append(c.idle, cc)
}
