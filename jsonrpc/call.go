package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// waiter is one outgoing call waiting for its response. Waiters are pooled:
// the result buffer is reused, so a round trip allocates nothing for it.
type waiter struct {
	ch     chan struct{} // capacity 1: the reader never blocks on it
	result []byte        // the raw result, owned by the waiter
	err    error
}

var waiterPool = sync.Pool{New: func() any { return &waiter{ch: make(chan struct{}, 1)} }}

func getWaiter() *waiter { return waiterPool.Get().(*waiter) }

func putWaiter(w *waiter) {
	if cap(w.result) > maxPooledFrame {
		w.result = nil
	}
	w.result, w.err = w.result[:0], nil
	waiterPool.Put(w)
}

func (w *waiter) fail(err error) {
	w.err = err
	w.ch <- struct{}{}
}

// register allocates an id for a call; it fails once reading has stopped,
// since no answer could ever arrive.
func (c *Conn) register(w *waiter) (int64, error) {
	if c.callErr != nil {
		return 0, c.callErr
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return 0, ErrClosed
	}
	c.nextID++
	c.pending[c.nextID] = w
	return c.nextID, nil
}

// unregister removes a call that will not wait any longer; false means the
// reader has already taken it and is about to signal.
func (c *Conn) unregister(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[id]; ok {
		delete(c.pending, id)
		return true
	}
	return false
}

// Call sends a request and waits for its answer, decoding the result into
// result (skipped when result is nil). params is nil (omitted) or encodes
// as a JSON array or object; a json.RawMessage goes out as it is. An error
// answer is returned as *Error. If ctx ends first, Call sends
// $/cancelRequest for the id and returns ctx's error.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	c.handOff() // the answer needs a reader (inline.go)
	w := getWaiter()
	id, err := c.register(w)
	if err != nil {
		putWaiter(w)
		return fmt.Errorf("jsonrpc: call %s: %w", method, err)
	}
	f := getFrame()
	err = f.request(id, method, params)
	if err == nil {
		err = c.ch.Write(f.Bytes())
	}
	putFrame(f)
	if err != nil {
		if !c.unregister(id) {
			<-w.ch
		}
		putWaiter(w)
		return fmt.Errorf("jsonrpc: call %s: %w", method, err)
	}
	select {
	case <-w.ch:
	case <-ctx.Done():
		if c.unregister(id) {
			putWaiter(w)
			c.notifyCancel(id)
			return fmt.Errorf("jsonrpc: call %s: %w", method, ctx.Err())
		}
		<-w.ch // the answer is being delivered; take it
	}
	defer putWaiter(w)
	if w.err != nil {
		if errors.Is(w.err, ErrClosed) {
			return fmt.Errorf("jsonrpc: call %s: %w", method, w.err)
		}
		return w.err
	}
	if result == nil {
		return nil
	}
	if raw, ok := result.(*json.RawMessage); ok {
		*raw = append((*raw)[:0], w.result...)
		return nil
	}
	if err := json.Unmarshal(w.result, result); err != nil {
		return fmt.Errorf("jsonrpc: call %s: decoding result: %w", method, err)
	}
	return nil
}

func (c *Conn) notifyCancel(id int64) {
	f := getFrame()
	f.WriteString(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":`)
	fmt.Fprint(f, id)
	f.WriteString("}}")
	c.write(f.Bytes())
	putFrame(f)
}

// Notify sends a notification. It returns once the frame is written.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("jsonrpc: notify %s: %w", method, err)
	}
	f := getFrame()
	defer putFrame(f)
	if err := f.request(0, method, params); err != nil {
		return fmt.Errorf("jsonrpc: notify %s: %w", method, err)
	}
	if err := c.ch.Write(f.Bytes()); err != nil {
		return fmt.Errorf("jsonrpc: notify %s: %w", method, err)
	}
	return nil
}

// BatchCall is one entry of a batch sent with Conn.Batch.
type BatchCall struct {
	Method string
	Params any  // nil, or encodes as a JSON array or object
	Notify bool // send as a notification: no answer, no BatchResult entry filled
}

// BatchResult is the answer to one BatchCall: Result (owned by the caller)
// or Err (an *Error from the peer).
type BatchResult struct {
	Result json.RawMessage
	Err    error
}

// Batch sends calls as one JSON array and waits for every answer. The
// results are in the order of calls, whatever order the peer answered in;
// notification entries stay zero.
func (c *Conn) Batch(ctx context.Context, calls []BatchCall) ([]BatchResult, error) {
	if len(calls) == 0 {
		return nil, errors.New("jsonrpc: batch: no calls (an empty batch is invalid)")
	}
	c.handOff() // the answers need a reader (inline.go)
	ids := make([]int64, len(calls))
	waiters := make([]*waiter, len(calls))
	release := func() {
		for i, w := range waiters {
			if w == nil {
				continue
			}
			if !c.unregister(ids[i]) {
				<-w.ch
			}
			putWaiter(w)
		}
	}
	f := getFrame()
	defer putFrame(f)
	f.WriteByte('[')
	for i, call := range calls {
		if i > 0 {
			f.WriteByte(',')
		}
		if !call.Notify {
			w := getWaiter()
			id, err := c.register(w)
			if err != nil {
				putWaiter(w)
				release()
				return nil, fmt.Errorf("jsonrpc: batch: %w", err)
			}
			ids[i], waiters[i] = id, w
		}
		if err := f.request(ids[i], call.Method, call.Params); err != nil {
			release()
			return nil, fmt.Errorf("jsonrpc: batch[%d] %s: %w", i, call.Method, err)
		}
	}
	f.WriteByte(']')
	if err := c.ch.Write(f.Bytes()); err != nil {
		release()
		return nil, fmt.Errorf("jsonrpc: batch: %w", err)
	}
	results := make([]BatchResult, len(calls))
	for i, w := range waiters {
		if w == nil {
			continue
		}
		select {
		case <-w.ch:
		case <-ctx.Done():
			for j := i; j < len(waiters); j++ {
				if waiters[j] == nil {
					continue
				}
				if c.unregister(ids[j]) {
					c.notifyCancel(ids[j])
				} else {
					<-waiters[j].ch
				}
				putWaiter(waiters[j])
			}
			return nil, fmt.Errorf("jsonrpc: batch: %w", ctx.Err())
		}
		results[i] = BatchResult{Result: append(json.RawMessage(nil), w.result...), Err: w.err}
		putWaiter(w)
		waiters[i] = nil
	}
	return results, nil
}

// route hands a response to the call waiting for its id (reader only).
func (c *Conn) route(env *envelope) {
	id, ok := parseID(env.id)
	var w *waiter
	if ok {
		c.mu.Lock()
		w = c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
	}
	if w == nil {
		c.log.Warn("jsonrpc: response to no pending call dropped", "id", string(env.id))
		return
	}
	if env.hasError {
		var e Error
		if err := json.Unmarshal(env.errObj, &e); err != nil || env.errObj[0] != '{' {
			w.fail(fmt.Errorf("jsonrpc: invalid error object %.200s from peer", env.errObj))
			return
		}
		w.fail(&e)
		return
	}
	w.result = append(w.result[:0], env.result...)
	w.ch <- struct{}{}
}

// badResponse handles an invalid envelope that looks like a response. It
// is never answered (two peers would trade errors forever); a call waiting
// for its id fails instead of hanging.
func (c *Conn) badResponse(env *envelope) {
	if id, ok := parseID(env.id); ok && env.idValid {
		c.mu.Lock()
		w := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if w != nil {
			w.fail(fmt.Errorf("jsonrpc: invalid response from peer: %s", env.invalid))
			return
		}
	}
	c.log.Warn("jsonrpc: invalid response dropped", "reason", env.invalid)
}

// parseID reads the ids this side generates (positive decimal integers).
func parseID(raw []byte) (int64, bool) {
	if len(raw) == 0 || len(raw) > 18 {
		return 0, false
	}
	var n int64
	for _, ch := range raw {
		if ch < '0' || ch > '9' {
			return 0, false
		}
		n = n*10 + int64(ch-'0')
	}
	return n, n > 0
}
