package dual

import "sync"

// writeQueue holds the lines waiting for one side's stdin. Any goroutine may
// put; exactly one writer goroutine pops. Buffers put are owned by the queue
// until popped, then by the writer.
type writeQueue struct {
	mu     sync.Mutex
	cond   sync.Cond // signalled on put, pop and close
	items  [][]byte
	head   int
	bytes  int
	limit  int
	closed bool
}

func newWriteQueue(limit int) *writeQueue {
	q := &writeQueue{limit: limit}
	q.cond.L = &q.mu
	return q
}

// put appends buf. With wait it first waits while the queue holds limit
// bytes or more (back-pressure for forwarded frames); without, it never
// waits (the engine's own small frames, and deadlines must not stall).
// It reports false if the queue is closed; buf is then dropped.
func (q *writeQueue) put(buf []byte, wait bool) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for wait && !q.closed && q.bytes > 0 && q.bytes+len(buf) > q.limit {
		q.cond.Wait()
	}
	if q.closed {
		return false
	}
	q.items = append(q.items, buf)
	q.bytes += len(buf)
	q.cond.Broadcast()
	return true
}

// pop waits for a line; false when the queue is closed.
func (q *writeQueue) pop() ([]byte, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.closed && q.head == len(q.items) {
		q.cond.Wait()
	}
	if q.closed {
		return nil, false
	}
	buf := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	q.bytes -= len(buf)
	q.cond.Broadcast()
	return buf, true
}

// close drops what is queued and wakes every waiter.
func (q *writeQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.items, q.head, q.bytes = nil, 0, 0
	q.cond.Broadcast()
	q.mu.Unlock()
}

// bufPool recycles line buffers up to 64 KiB; bigger ones go to the GC so
// that one huge frame does not stay pinned.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

const maxPooled = 64 << 10

func getLine(frame []byte) []byte {
	bp := bufPool.Get().(*[]byte)
	b := append((*bp)[:0], frame...)
	return append(b, '\n')
}

func putLine(b []byte) {
	if cap(b) <= maxPooled {
		bufPool.Put(&b)
	}
}
