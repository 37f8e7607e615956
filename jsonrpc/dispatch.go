package jsonrpc

import (
	"bytes"
	"errors"
	"runtime/debug"
)

// idKey identifies a request id by its exact bytes without allocating for
// the short ids peers use in practice.
type idKey struct {
	n     uint8
	short [31]byte
	long  string
}

func keyOf(id []byte) idKey {
	var k idKey
	if len(id) <= len(k.short) {
		k.n = uint8(len(id))
		copy(k.short[:], id)
	} else {
		k.long = string(id)
	}
	return k
}

// handleFrame runs on the reader goroutine and never waits for a handler.
func (c *Conn) handleFrame(frame []byte) {
	if len(bytes.TrimSpace(frame)) == 0 {
		return // blank lines between messages are tolerated
	}
	kind, envs := parseLine(frame, c.scratch)
	c.scratch = envs
	switch kind {
	case lineNotJSON:
		c.writeError(nil, ErrParse)
	case lineEmptyBatch:
		c.writeError(nil, ErrInvalidRequest)
	case lineSingle:
		c.handleEnvelope(&envs[0], nil)
	case lineBatch:
		b := newBatchCollector(c)
		for i := range envs {
			c.handleEnvelope(&envs[i], b)
		}
		b.release()
	}
	clear(envs) // drop references into the frame
}

// handleEnvelope routes one message; b collects answers of a batch.
func (c *Conn) handleEnvelope(env *envelope, b *batchCollector) {
	if env.invalid != "" {
		if (env.hasResult || env.hasError) && !env.hasMethod {
			c.badResponse(env)
			return
		}
		c.log.Debug("jsonrpc: invalid request", "reason", env.invalid)
		var id []byte
		if env.idValid {
			id = env.id
		}
		c.answerError(b, id, ErrInvalidRequest)
		return
	}
	if env.isResponse() {
		c.route(env)
		return
	}
	method, ok := c.methodName(env.method)
	if !ok {
		c.answerError(b, nil, ErrInvalidRequest)
		return
	}
	if c.token != nil && (method == MethodAuthenticate || !c.authed) {
		if method == MethodAuthenticate {
			c.authenticate(env, b)
		} else if env.hasID {
			c.answerError(b, env.id, unauthorized("call "+MethodAuthenticate+` {"token": ...} first, with the token from the server's --token-file`))
		}
		return
	}
	if env.isNotification() && method == "$/cancelRequest" {
		c.cancelRequest(env.params)
		return
	}
	c.dispatch(env, method, b)
}

// answerError sends an error for a request read by the reader itself.
func (c *Conn) answerError(b *batchCollector, id []byte, e *Error) {
	if b == nil {
		c.writeError(id, e)
		return
	}
	f := getFrame()
	f.errorResponse(id, e)
	b.add(f.Bytes())
	putFrame(f)
}

// methodName interns method names so that the common case allocates nothing.
func (c *Conn) methodName(raw []byte) (string, bool) {
	if len(raw) >= 2 && bytes.IndexByte(raw, '\\') < 0 {
		if name, ok := c.methods[string(raw[1:len(raw)-1])]; ok {
			return name, true
		}
	}
	name, ok := unquote(raw)
	if ok && len(c.methods) < 1024 {
		c.methods[name] = name
	}
	return name, ok
}

// dispatch queues a request or notification for a handler goroutine.
func (c *Conn) dispatch(env *envelope, method string, b *batchCollector) {
	in := &inflight{conn: c, batch: b}
	in.buf = make([]byte, 0, len(env.id)+len(env.params))
	in.buf = append(in.buf, env.id...)
	in.buf = append(in.buf, env.params...)
	in.req.Method = method
	if env.hasID {
		in.req.ID = in.buf[:len(env.id):len(env.id)]
	}
	if env.params != nil {
		in.req.Params = in.buf[len(env.id):]
	}
	if env.hasID {
		if b != nil {
			b.expect()
		}
		in.key = keyOf(env.id)
		c.mu.Lock()
		_, dup := c.inflight[in.key]
		if !dup {
			c.inflight[in.key] = in
		}
		c.mu.Unlock()
		if dup {
			in.answer(nil, ErrInvalidRequest.withData("reason", "id "+string(env.id)+" is already in flight"), false)
			return
		}
	}
	if !c.admit(int64(cap(in.buf))) {
		if env.hasID {
			c.forget(in)
			in.answer(nil, ErrOverloaded, false)
		} else {
			c.log.Warn("jsonrpc: overloaded, notification dropped", "method", method)
		}
		return
	}
	if b == nil && c.tryInline(in) {
		return
	}
	c.work <- in // cannot block: capacity is maxOutstand
	for {
		n := c.idle.Load()
		if n == 0 {
			if c.workers < c.maxWorkers {
				c.workers++
				c.workerWG.Add(1)
				go c.worker()
			}
			return
		}
		if c.idle.CompareAndSwap(n, n-1) {
			return
		}
	}
}

func (c *Conn) forget(in *inflight) {
	c.mu.Lock()
	if c.inflight[in.key] == in {
		delete(c.inflight, in.key)
	}
	c.mu.Unlock()
}

// worker runs queued requests until the reader stops. Its first request
// was claimed when it was started; after each one it makes itself
// claimable again.
func (c *Conn) worker() {
	defer c.workerWG.Done()
	for in := range c.work {
		c.run(in, false)
		c.release(int64(cap(in.buf)))
		c.idle.Add(1)
	}
}

// run answers in; inline, its running slots were taken already.
func (c *Conn) run(in *inflight, inline bool) {
	c.mu.Lock()
	if c.closing {
		in.cancel(errCanceledByClose)
	}
	c.running[in] = struct{}{}
	c.mu.Unlock()
	in.readMeta()
	var result any
	var err error
	// Workers alone cannot exceed MaxConcurrent, so a worker takes this
	// Conn's slot only beside a handler running on the reader (which took
	// one already): a channel send and receive per request cost the
	// in-memory benchmarks 10-15%. No run can begin inline while this
	// request is outstanding, so one seen idle stays idle until it ends.
	own := inline || c.inl.active()
	if inline || c.takeSlots(in, own, true) {
		result, err = c.handle(in)
		// The server's slot goes back before the answer is written, so a
		// peer slow to read holds none; this Conn's after, so that with
		// MaxConcurrent 1 answers leave in the order their handlers ran.
		if c.shared != nil {
			<-c.shared.slots
		}
		if own {
			defer c.giveSlot()
		}
	} else {
		err = in.cause() // cancelled while it waited for a slot: answered -32800, never run
	}
	c.mu.Lock()
	delete(c.running, in)
	c.mu.Unlock()
	pe := asPanic(err)
	if pe != nil {
		c.log.Error("jsonrpc: handler panicked", "method", in.req.Method, "trace_id", in.traceID,
			"notification", in.req.ID == nil, "panic", pe.valueString(), "stack", string(pe.stack))
	}
	if in.req.ID == nil {
		if err != nil && pe == nil {
			c.log.Warn("jsonrpc: notification handler failed", "method", in.req.Method, "trace_id", in.traceID, "err", err)
		}
		return
	}
	if err != nil {
		e := toWireError(in.req.Method, err, in.cause() != nil)
		if e.Code == CodeInternalError && pe == nil {
			c.log.Warn("jsonrpc: handler failed", "method", in.req.Method, "trace_id", in.traceID, "err", err)
		}
		c.forget(in)
		in.answer(nil, e, inline)
		return
	}
	c.forget(in)
	in.answer(result, nil, inline)
}

// asPanic is the *panicError in err's chain, or nil. The errors.As target
// escapes to the heap, so it is declared only once err is known non-nil:
// a request that succeeds allocates nothing for it.
func asPanic(err error) *panicError {
	if err == nil {
		return nil
	}
	var pe *panicError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

// takeSlots takes a running slot of this Conn if own is set and, when it
// shares bounds with others, one of theirs. It waits for them if wait is
// set (false when in is cancelled meanwhile), else fails at once when one
// is taken.
func (c *Conn) takeSlots(in *inflight, own, wait bool) bool {
	if own && !take(c.slots, in, wait) {
		return false
	}
	if c.shared != nil && !take(c.shared.slots, in, wait) {
		if own {
			<-c.slots
		}
		return false
	}
	return true
}

func take(slots chan struct{}, in *inflight, wait bool) bool {
	select {
	case slots <- struct{}{}:
		return true
	default:
	}
	if !wait {
		return false
	}
	select {
	case slots <- struct{}{}:
		return true
	case <-in.Done():
		return false
	}
}

// giveSlot gives back this Conn's running slot.
func (c *Conn) giveSlot() { <-c.slots }

// handle calls the handler and turns a panic into a *panicError, so that
// one failing handler costs its own request and not the connection (or the
// process serving every other connection).
func (c *Conn) handle(in *inflight) (result any, err error) {
	defer func() {
		if v := recover(); v != nil {
			result, err = nil, &panicError{value: v, stack: debug.Stack()}
		}
	}()
	return c.handler.Handle(in, &in.req)
}

// answer writes the response (to the batch if the request came in one;
// at once if it ran inline). The id is released before the write so that
// the peer may reuse it as soon as it reads the answer.
func (in *inflight) answer(result any, e *Error, inline bool) {
	f := getFrame()
	defer putFrame(f)
	if e == nil {
		if err := f.result(in.req.ID, result); err != nil {
			f.Reset()
			if pe := asPanic(err); pe != nil {
				in.conn.log.Error("jsonrpc: encoding a result panicked", "method", in.req.Method, "trace_id", in.traceID,
					"panic", pe.valueString(), "stack", string(pe.stack))
			}
			e = ErrInternal.withData("exception", exceptionName(err), "message", in.req.Method+": result: "+err.Error())
		}
	}
	if e != nil {
		f.errorResponse(in.req.ID, e)
	}
	if in.batch != nil {
		in.batch.add(f.Bytes())
		in.batch.finishOne()
		return
	}
	if inline {
		in.conn.writeAlone(f.Bytes())
		return
	}
	in.conn.write(f.Bytes())
}

// cancelRequest handles $/cancelRequest {"id": ID} on the reader.
func (c *Conn) cancelRequest(params []byte) {
	id := objectMember(params, "id")
	if id == nil {
		c.log.Debug("jsonrpc: $/cancelRequest without id")
		return
	}
	c.mu.Lock()
	in := c.inflight[keyOf(id)]
	c.mu.Unlock()
	if in != nil {
		in.cancel(errCanceledByPeer)
	}
}

// readMeta picks the progress token and trace id out of params._meta.
func (in *inflight) readMeta() {
	p := in.req.Params
	if len(p) == 0 || p[0] != '{' || !bytes.Contains(p, []byte(`"_meta"`)) {
		return
	}
	meta := objectMember(p, "_meta")
	if meta == nil || meta[0] != '{' {
		return
	}
	if tok := objectMember(meta, "progressToken"); tok != nil && (tok[0] == '"' || tok[0] == '-' || tok[0] >= '0' && tok[0] <= '9') {
		in.progressToken = tok
	}
	if s, ok := unquote(objectMember(meta, "traceId")); ok {
		in.traceID = s
	} else if s, ok := unquote(objectMember(meta, "traceparent")); ok {
		in.traceID = traceIDFromParent(s)
	}
}

// traceIDFromParent takes the trace-id field of a W3C traceparent
// ("00-<32 hex>-<16 hex>-<2 hex>").
func traceIDFromParent(s string) string {
	if len(s) >= 35 && s[2] == '-' && s[35] == '-' {
		return s[3:35]
	}
	return ""
}

// objectMember returns the raw value of member name in the valid JSON
// object obj, or nil.
func objectMember(obj []byte, name string) []byte {
	var found []byte
	messageSyntax.Members(obj, skipSpace(obj, 0), func(key, value []byte) {
		if found == nil && string(key[1:len(key)-1]) == name {
			found = value
		}
	})
	return found
}
