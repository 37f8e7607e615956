package jsonrpc

import (
	"errors"
	"fmt"

	"github.com/tether-dev/tether/wire"
)

// headKind is what the first bytes of an oversize message show it to be.
type headKind uint8

const (
	headUnknown  headKind = iota
	headRequest           // a "method" or "params" member starts in the head
	headResponse          // a "result" or "error" member starts in the head
)

// scanHead reads the top-level members of the object that head starts, head
// being the first bytes of a message too large to read whole. It returns
// the "id" member if it is complete in head, followed by "," or "}", and of
// a type an id may have, and what the message is. It does not guess: an id
// that is cut, a second "id", a member name or value that is not JSON, or
// members of both a request and a response give a nil id.
func scanHead(head []byte) ([]byte, headKind) {
	i := skipSpace(head, 0)
	if i >= len(head) || head[i] != '{' {
		return nil, headUnknown // a batch, or not an object: no single id
	}
	var id []byte
	ids := 0
	request, response := false, false
	i = skipSpace(head, i+1)
	for i < len(head) && head[i] == '"' {
		keyEnd := skipString(head, i)
		if keyEnd < 0 {
			break // cut (or broken) inside a member name
		}
		name, ok := unquote(head[i:keyEnd])
		i = skipSpace(head, keyEnd)
		if !ok || i >= len(head) || head[i] != ':' {
			break
		}
		switch name { // the member has started: what it says of the kind holds
		case "method", "params":
			request = true
		case "result", "error":
			response = true
		}
		start := skipSpace(head, i+1)
		if start >= len(head) {
			break
		}
		end := skipValue(head, start, 1)
		if end < 0 {
			break // cut inside the value
		}
		i = skipSpace(head, end)
		if i >= len(head) || head[i] != ',' && head[i] != '}' {
			break // a number at the cut may go on (12 of 123), so only a delimiter proves the value whole
		}
		if name == "id" {
			id = head[start:end]
			ids++
		}
		if head[i] == '}' {
			break
		}
		i = skipSpace(head, i+1)
	}
	kind := headUnknown
	switch {
	case request && !response:
		kind = headRequest
	case response && !request:
		kind = headResponse
	}
	if ids != 1 || kind == headUnknown {
		return nil, kind
	}
	switch c := id[0]; {
	case c == '"', c == 'n', c == '-', c >= '0' && c <= '9':
		return id, kind
	}
	return nil, kind
}

// oversize answers a message over the size cap that the channel skipped:
// with -32001 and the request's id when its head shows it, else id null (the
// spec's rule). A response of the peer to one of this side's calls fails
// that call at once instead of leaving it to its deadline.
func (c *Conn) oversize(err error, head []byte) {
	id, kind := scanHead(head)
	if kind == headResponse && id != nil {
		if n, ok := parseID(id); ok {
			c.mu.Lock()
			w := c.pending[n]
			delete(c.pending, n)
			c.mu.Unlock()
			if w != nil {
				w.fail(fmt.Errorf("jsonrpc: the peer's response is over the size cap: %w", err))
			}
		}
		id = nil // a response is not answered with its id: that would look like a response to the peer's own call
	}
	c.writeError(id, ErrFrameTooLarge.withData("reason", err.Error()))
}

// skippedFrameError is the Read error of a length-prefixed channel that
// refused a frame over its cap and skipped its body: reading goes on.
type skippedFrameError struct {
	err  *wire.FrameTooLargeError
	head []byte // a copy of the body's first bytes
}

func (e *skippedFrameError) Error() string { return e.err.Error() + "; skipped" }

func (e *skippedFrameError) Unwrap() error { return e.err }

// skippedHead says whether a Read error reports a message over the cap that
// the channel skipped, and returns the message's first bytes.
func skippedHead(err error) ([]byte, bool) {
	var line *wire.LineTooLongError
	if errors.As(err, &line) {
		return line.Head, true
	}
	var frame *skippedFrameError
	if errors.As(err, &frame) {
		return frame.head, true
	}
	return nil, false
}
