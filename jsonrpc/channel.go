package jsonrpc

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/tether-dev/tether/wire"
)

// Channel carries whole frames, each one JSON message or batch, and knows
// nothing of JSON-RPC. Read is called by one goroutine only (the
// connection's reader) and returns a frame valid until the next Read; Write
// must be safe for concurrent use and must not keep the slice. Close makes a
// blocked Read return.
//
// A Read error that matches wire.ErrTooLarge reports a frame over the size
// cap: if it is a *wire.LineTooLongError the frame was skipped and reading
// goes on (its Head may give the request's id for the -32001 answer); any
// other Read error ends the connection.
type Channel interface {
	Read() ([]byte, error)
	Write(frame []byte) error
	Close() error
}

// NDJSON frames messages as newline-delimited JSON, one per line, with lines
// longer than maxLine bytes (wire.DefaultMaxLine when <= 0) answered with
// -32001 and skipped. Closing the channel closes w, and r if it is an
// io.Closer.
func NDJSON(r io.Reader, w io.Writer, maxLine int) Channel {
	return &lineChannel{r: wire.NewLineReader(r, maxLine), w: wire.NewLineWriter(w), closers: closersOf(r, w)}
}

// LengthPrefixed frames messages with a 4-byte big-endian length. A read frame
// over maxFrame (wire.DefaultMaxFrame when <= 0) is answered with -32001 and
// skipped: its declared length says how many bytes to discard, and they are
// discarded without being held in memory. The connection goes on unless the
// stream ends inside the skipped body.
func LengthPrefixed(r io.Reader, w io.Writer, maxFrame int) Channel {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 32<<10) // wire.NewFrameReader's own read-ahead, kept here to see what it holds
	}
	return &frameChannel{r: wire.NewFrameReader(br, maxFrame), in: br, w: wire.NewFrameWriter(w, 0), closers: closersOf(r, w)}
}

func closersOf(r io.Reader, w io.Writer) []io.Closer {
	var cs []io.Closer
	if c, ok := w.(io.Closer); ok {
		cs = append(cs, c)
	}
	if c, ok := r.(io.Closer); ok && any(r) != any(w) {
		cs = append(cs, c)
	}
	return cs
}

func closeAll(cs []io.Closer) error {
	var errs []error
	for _, c := range cs {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

type lineChannel struct {
	r       *wire.LineReader
	w       *wire.LineWriter
	closers []io.Closer
}

func (c *lineChannel) Read() ([]byte, error)    { return c.r.ReadLine() }
func (c *lineChannel) Write(frame []byte) error { return c.w.WriteLine(frame) }
func (c *lineChannel) Close() error             { return closeAll(c.closers) }
func (c *lineChannel) drained() bool            { return c.r.Buffered() == 0 }
func (c *lineChannel) writeNow(frame []byte) error {
	return c.w.WriteLineNow(frame)
}

type frameChannel struct {
	r       *wire.FrameReader
	in      *bufio.Reader // r's source
	w       *wire.FrameWriter
	closers []io.Closer
}

func (c *frameChannel) Read() ([]byte, error) {
	frame, err := c.r.ReadFrame()
	var big *wire.FrameTooLargeError
	if err != nil && errors.As(err, &big) {
		head, serr := c.r.SkipOversize()
		if serr != nil { // the stream ended inside the body: -32001, then the end
			return nil, fmt.Errorf("%w; skipping it: %w", big, serr)
		}
		return nil, &skippedFrameError{err: big, head: head}
	}
	return frame, err
}

func (c *frameChannel) Write(frame []byte) error { return c.w.WriteFrame(frame) }
func (c *frameChannel) Close() error             { return closeAll(c.closers) }
func (c *frameChannel) drained() bool            { return c.in.Buffered() == 0 }
func (c *frameChannel) writeNow(frame []byte) error {
	return c.w.WriteFrame(frame)
}
