// Package peer is the connection core shared by the Go SDKs: one reading
// goroutine that routes responses (result / error frames) to the waiting
// calls by id, and hands every other frame to a callback; writes go through
// one combining line writer (concurrent frames share a Write).
package peer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/tether-dev/tether/codec"
	"github.com/tether-dev/tether/sdk/go/internal/frame"
	"github.com/tether-dev/tether/wire"
)

// ErrClosed: the input reached EOF (or failed) or the peer was closed; no
// response will come.
var ErrClosed = errors.New("connection closed")

// Peer is safe for concurrent use. Its reading goroutine is started by New
// and ends when the input ends or Close is called; Close and Wait wait for it.
type Peer struct {
	in      io.Reader
	w       *wire.LineWriter
	onFrame func(frame.Frame)

	onUndecodable func(frame.Undecodable) // set before Start; may be nil

	mu      sync.Mutex // guards the fields below
	pending map[string]chan frame.Frame
	err     error // set once when the input ends; ErrClosed-wrapping

	done chan struct{} // closed when the reading goroutine has returned
}

// New returns a peer over in and out; Start begins reading. onFrame is
// called on the reading goroutine for every frame that is not a response to
// a pending Request (and for responses to unknown ids); it must not block:
// hand work to another goroutine. Keeping New apart from Start lets the
// owner store the peer before any onFrame can use it.
func New(in io.Reader, out io.Writer, onFrame func(frame.Frame)) *Peer {
	p := &Peer{
		in:      in,
		w:       wire.NewLineWriter(out),
		onFrame: onFrame,
		pending: make(map[string]chan frame.Frame),
		done:    make(chan struct{}),
	}
	return p
}

// OnUndecodable sets fn to be called on the reading goroutine for a frame
// the codec refused (see frame.Inspect) that is not a response, such as a
// call whose args hold NaN, so that its sender can be answered Rejected
// instead of timing out. Like onFrame, fn must not block. Call it before
// Start.
func (p *Peer) OnUndecodable(fn func(frame.Undecodable)) { p.onUndecodable = fn }

// Start starts the reading goroutine; call it once.
func (p *Peer) Start() { go p.readLoop() }

func (p *Peer) readLoop() {
	defer close(p.done)
	r := wire.NewLineReader(yieldingReader{p.in}, wire.DefaultMaxLine)
	var cause error
	for {
		line, err := r.ReadLine()
		if err != nil {
			var tooLong *wire.LineTooLongError
			if errors.As(err, &tooLong) {
				continue // the line was skipped; the next one is intact
			}
			if !errors.Is(err, io.EOF) {
				cause = err
			}
			break
		}
		f, err := frame.Parse(line)
		if err != nil {
			p.undecodable(line, err)
			continue
		}
		if (f.Type == "result" || f.Type == "error") && p.deliver(f) {
			continue
		}
		p.onFrame(f)
	}
	p.fail(cause)
}

// undecodable handles a line Parse refused. A frame whose type and id can
// still be read is answered: a response fails its pending call with code
// Rejected (a response to no pending call is dropped), anything else goes
// to the OnUndecodable callback. Plain text or garbage is not ours to answer.
func (p *Peer) undecodable(line []byte, cause error) {
	u, ok := frame.Inspect(line, cause)
	if !ok {
		return
	}
	switch u.Type {
	case "result", "error":
		p.deliver(u.Rejected())
	default:
		if p.onUndecodable != nil {
			p.onUndecodable(u)
		}
	}
}

func (p *Peer) deliver(f frame.Frame) bool {
	p.mu.Lock()
	ch, ok := p.pending[f.ID]
	delete(p.pending, f.ID)
	p.mu.Unlock()
	if ok {
		ch <- f // buffered 1, and only this goroutine sends
	}
	return ok
}

// fail ends every pending request with ErrClosed.
func (p *Peer) fail(cause error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		p.err = ErrClosed
		if cause != nil {
			p.err = errors.Join(ErrClosed, cause)
		}
	}
	for id, ch := range p.pending {
		close(ch)
		delete(p.pending, id)
	}
}

// Request writes line (a call or capability frame with the given id) and
// waits for its response. A cancelled ctx abandons the wait; a late
// response is then dropped. Errors wrap ErrClosed or ctx.Err(). line is
// copied before Request waits: the caller may reuse its buffer as soon as
// Request returns.
func (p *Peer) Request(ctx context.Context, id string, line []byte) (frame.Frame, error) {
	ch := replyChans.Get().(chan frame.Frame)
	p.mu.Lock()
	if p.err != nil {
		err := p.err
		p.mu.Unlock()
		return frame.Frame{}, err
	}
	p.pending[id] = ch
	p.mu.Unlock()
	if err := p.w.WriteLine(line); err != nil {
		p.forget(id)
		return frame.Frame{}, errors.Join(ErrClosed, err)
	}
	var f frame.Frame
	var ok bool
	if done := ctx.Done(); done == nil { // a context that never ends: a plain receive, no select
		f, ok = <-ch
	} else {
		select {
		case f, ok = <-ch:
		case <-done:
			p.forget(id)
			return frame.Frame{}, ctx.Err()
		}
	}
	if !ok {
		return frame.Frame{}, p.Err()
	}
	replyChans.Put(ch) // received its one send and left the map: nobody else holds it
	return f, nil
}

// Ask sends a request of type typ ("call" or "capability") for name with
// args and a new id, and waits for its response (see Request). A frame
// that cannot be sent -- an argument not transferable, or the frame over
// codec.MaxFrameSize -- fails before anything is written, with an error
// wrapping rejected (the caller's sentinel for it) and the reason.
func (p *Peer) Ask(ctx context.Context, typ, name string, args []any, timeoutMs int64, rejected error) (frame.Frame, error) {
	id := frame.NewID()
	buf := frame.GetBuffer()
	defer frame.PutBuffer(buf) // Request copies the line out before it returns
	line, err := frame.AppendRequest(*buf, typ, id, name, args, timeoutMs)
	*buf = line
	if err == nil {
		err = codec.CheckFrameSize(len(line))
	}
	if err != nil {
		return frame.Frame{}, fmt.Errorf("%w: %w", rejected, err)
	}
	return p.Request(ctx, id, line)
}

// Answer sends the result frame of the request id with value v, or, if v
// is not transferable or the frame would be over codec.MaxFrameSize, an
// error frame with code Rejected and the reason.
func (p *Peer) Answer(id string, v any) {
	buf := frame.GetBuffer()
	defer frame.PutBuffer(buf) // Send copies the line out before it returns
	line, err := frame.AppendResult(*buf, id, v)
	*buf = line
	if err == nil {
		if err = codec.CheckFrameSize(len(line)); err == nil {
			p.Send(line)
			return
		}
	}
	p.Send(frame.Error(id, codec.CodeRejected, err.Error(), ""))
}

// replyChans recycles the one-slot channels a Request waits on. Only a
// channel whose response was received goes back: an abandoned one may still
// get a late send, a closed one is done.
var replyChans = sync.Pool{New: func() any { return make(chan frame.Frame, 1) }}

func (p *Peer) forget(id string) {
	p.mu.Lock()
	delete(p.pending, id)
	p.mu.Unlock()
}

// Send queues one frame for writing (see wire.LineWriter: concurrent sends are
// combined into one write). line is copied: the caller may reuse its
// buffer once Send returns. Use Flush where the frame must be out, as
// before the process may exit.
func (p *Peer) Send(line []byte) error { return p.w.WriteLine(line) }

// SendLines is Send for lines that must stay together: no other line
// comes between them.
func (p *Peer) SendLines(lines ...[]byte) error { return p.w.WriteLines(lines...) }

// Flush waits until every frame sent so far is written.
func (p *Peer) Flush() error { return p.w.Flush() }

// Err is nil while the input is open, then ErrClosed (possibly joined with
// the read error).
func (p *Peer) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Done is closed when the reading goroutine has returned.
func (p *Peer) Done() <-chan struct{} { return p.done }

// Close fails pending requests and, if the input is an io.Closer, closes it
// and waits for the reading goroutine. Without a closable input the reading
// goroutine ends only at the input's EOF, so Close does not wait for it
// then. os.Stdin is never closed (a blocked read on it would not return).
func (p *Peer) Close() error {
	var err error
	if c, ok := p.in.(io.Closer); ok && p.in != io.Reader(os.Stdin) {
		err = c.Close()
		<-p.done
	}
	p.fail(nil)
	return err
}
