package lm

import (
	"errors"
	"io"
	"net"
	"time"

	"github.com/tether-dev/tether/wire"
)

// serveConn answers requests on c in sequence until the peer closes, a
// frame is bad, a timeout expires or the server closes. A guarded
// connection is first checked for its peer's uid.
func (s *Server) serveConn(c net.Conn, guard bool) {
	if guard && !s.admit(c) {
		s.removeConn(c)
		return
	}
	var meter Meter // this connection's usage
	defer func() {
		c.Close()
		if s.opts.ConnDone != nil {
			s.opts.ConnDone(c.RemoteAddr().String(), meter.Summary())
		}
		s.removeConn(c)
	}()
	dr := &deadlineReader{conn: c, idle: s.opts.IdleTimeout, read: s.opts.ReadTimeout}
	fr := wire.NewFrameReader(dr, s.opts.MaxFrame)
	hold := s.pending.Hold(func() { c.Close() })
	defer hold.Close()
	fr.SetHold(hold)
	fw := wire.NewFrameWriter(c, s.opts.MaxFrame)
	for {
		dr.await()
		payload, err := fr.ReadFrame()
		if err != nil {
			var tooLarge *wire.FrameTooLargeError
			if errors.As(err, &tooLarge) {
				s.reply(c, fw, ErrorResponse(err.Error()))
			}
			// EOF, a cut frame or a stalled peer: nothing more can be read.
			return
		}
		req, err := decodeRequest(payload)
		if errors.Is(err, ErrInvalidRequest) {
			// An object whose field has the wrong type: the frame was read
			// whole, so answer with the reason and keep the connection.
			if !s.reply(c, fw, ErrorResponse(err.Error())) {
				return
			}
			continue
		}
		if err != nil {
			// rlm answers a non-object with its fixed text and closes; so do we
			// for anything that is not a request object.
			s.reply(c, fw, ErrorResponse(err.Error()))
			return
		}
		if !s.reply(c, fw, s.answer(s.ctx, req, &meter)) {
			return
		}
	}
}

// reply writes resp within WriteTimeout; false means the connection is done.
func (s *Server) reply(c net.Conn, fw *wire.FrameWriter, resp *Response) bool {
	body := resp.AppendJSON(nil)
	c.SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout))
	if err := fw.WriteFrame(body); err != nil {
		var tooLarge *wire.FrameTooLargeError
		if !errors.As(err, &tooLarge) {
			return false
		}
		body = ErrorResponse("lm: response too large: " + err.Error()).AppendJSON(nil)
		return fw.WriteFrame(body) == nil
	}
	return true
}

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
