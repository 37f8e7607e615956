package jsonrpc

import "sync"

// batchCollector gathers the answers to one incoming batch and writes them
// as one array when the last one is in. The reader holds one extra count
// until it has dispatched every entry, so the array cannot go out early.
type batchCollector struct {
	conn *Conn

	mu        sync.Mutex // protects the fields below
	remaining int
	frame     []byte
}

func newBatchCollector(c *Conn) *batchCollector {
	return &batchCollector{conn: c, remaining: 1, frame: []byte{'['}}
}

// expect counts one more answer to wait for.
func (b *batchCollector) expect() {
	b.mu.Lock()
	b.remaining++
	b.mu.Unlock()
}

// add appends one answer (copied). Answers the reader produces itself
// (invalid entries) are not announced with expect.
func (b *batchCollector) add(resp []byte) {
	b.mu.Lock()
	if len(b.frame) > 1 {
		b.frame = append(b.frame, ',')
	}
	b.frame = append(b.frame, resp...)
	b.mu.Unlock()
}

// release drops the reader's hold once every entry is dispatched.
func (b *batchCollector) release() { b.finishOne() }

// finishOne counts one announced answer (or the reader's hold) done and
// writes the array after the last.
func (b *batchCollector) finishOne() {
	b.mu.Lock()
	b.remaining--
	last := b.remaining == 0
	b.mu.Unlock()
	if !last {
		return
	}
	if len(b.frame) > 1 { // not all notifications
		b.conn.write(append(b.frame, ']'))
	}
}
