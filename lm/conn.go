package lm

import (
	"bufio"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/tether-dev/tether/wire"
)

// serveConn answers requests on c in sequence until the peer closes, a
// frame is bad, a timeout expires or the server closes. A guarded
// connection is first checked for its peer's uid.
func (s *Server) serveConn(c net.Conn, guard bool) {
	if guard && !s.admit(c) {
		s.done(c)
		return
	}
	var meter *Meter // this connection's usage, kept only for ConnDone
	if s.opts.ConnDone != nil {
		meter = new(Meter)
	}
	defer func() {
		c.Close()
		if meter != nil {
			s.opts.ConnDone(c.RemoteAddr().String(), meter.Summary())
		}
		s.done(c)
	}()
	dr := &deadlineReader{conn: c, idle: s.opts.IdleTimeout, read: s.opts.ReadTimeout}
	br := readBuffers.Get().(*bufio.Reader)
	br.Reset(dr)
	defer func() { br.Reset(nil); readBuffers.Put(br) }()
	fr := wire.NewFrameReader(br, s.opts.MaxFrame)
	hold := s.pending.Hold(func() { c.Close() })
	defer hold.Close()
	fr.SetHold(hold)
	w := &replier{c: c, fw: wire.NewFrameWriter(c, s.opts.MaxFrame), timeout: s.opts.WriteTimeout}
	for {
		dr.await()
		payload, err := fr.ReadFrame()
		if err != nil {
			if errors.Is(err, wire.ErrTooLarge) {
				w.reply(ErrorResponse(err.Error()))
			}
			// EOF, a cut frame or a stalled peer: nothing more can be read.
			return
		}
		req, err := decodeRequest(payload)
		if errors.Is(err, ErrInvalidRequest) {
			// An object whose field has the wrong type: the frame was read
			// whole, so answer with the reason and keep the connection.
			if !w.reply(ErrorResponse(err.Error())) {
				return
			}
			continue
		}
		if err != nil {
			// rlm answers a non-object with its fixed text and closes; so do we
			// for anything that is not a request object.
			w.reply(ErrorResponse(err.Error()))
			return
		}
		if !w.reply(s.answer(s.ctx, req, meter)) {
			return
		}
	}
}

// readBuffers are the connections' read-ahead buffers: most clients
// connect for one request, and a buffer taken from here is not allocated
// and zeroed again for each.
var readBuffers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 32<<10) }}

// replier writes a connection's responses, each within WriteTimeout.
type replier struct {
	c       net.Conn
	fw      *wire.FrameWriter
	timeout time.Duration
	buf     []byte // the last response's encoding, reused for the next
}

// reply writes resp; false means the connection is done.
func (r *replier) reply(resp *Response) bool {
	if cap(r.buf) > keepReplyBuffer {
		r.buf = nil
	}
	if r.buf == nil {
		r.buf = make([]byte, 0, 1024)
	}
	r.buf = resp.AppendJSON(r.buf[:0])
	r.c.SetWriteDeadline(time.Now().Add(r.timeout))
	if err := r.fw.WriteFrame(r.buf); err != nil {
		if !errors.Is(err, wire.ErrTooLarge) {
			return false
		}
		r.buf = ErrorResponse("lm: response too large: " + err.Error()).AppendJSON(r.buf[:0])
		return r.fw.WriteFrame(r.buf) == nil
	}
	return true
}

// keepReplyBuffer is the largest response buffer kept for the next one.
const keepReplyBuffer = 64 << 10

// deadlineReader gives a connection two read deadlines: IdleTimeout while
// waiting for the first byte of a request, then ReadTimeout for the rest of
// the frame, so a peer that stalls mid-frame is cut off sooner than an idle one.
type deadlineReader struct {
	conn       net.Conn
	idle, read time.Duration
	started    bool
}

func (d *deadlineReader) await() {
	d.started = false
	d.conn.SetReadDeadline(time.Now().Add(d.idle))
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	n, err := d.conn.Read(p)
	if n > 0 && !d.started {
		d.started = true
		d.conn.SetReadDeadline(time.Now().Add(d.read))
	}
	return n, err
}

var _ io.Reader = (*deadlineReader)(nil)
