package dual

import (
	"slices"
	"sync"
)

// writeQueue holds the lines waiting for one side's stdin. Any goroutine
// may put; one writer goroutine pops. A put into an idle queue writes the
// line itself when the pump can write the pipe without blocking (try), and
// queues only what the pipe did not take: that saves waking the writer.
type writeQueue struct {
	mu     sync.Mutex
	cond   sync.Cond // signalled on put, pop, close and when a put's own write ends
	items  [][]byte
	head   int
	bytes  int
	limit  int
	closed bool
	direct bool             // a put is writing into the pipe itself: the writer waits
	held   bool             // the writer holds a batch it may not have written: puts queue behind it
	try    func([]byte) int // writes what the pipe takes now without blocking; nil when it cannot
	slack  int64            // what the pipe holds unread at most
	onRoom func()           // called, without the lock, when a pop brings the queue back under its limit

	// Positions in the stream of bytes for the side's stdin: in counts the
	// bytes accepted, out those written into the pipe, unaskedEnd where the
	// last buffer holding an unasked frame (Action.Unasked) ended.
	in, out, unaskedEnd int64
}

func newWriteQueue(limit int, try func([]byte) int, slack int64) *writeQueue {
	q := &writeQueue{limit: limit, try: try, slack: slack}
	q.cond.L = &q.mu
	return q
}

// put appends buf, which the queue owns from then on. With wait it first
// waits while the queue holds limit bytes or more (back-pressure for
// forwarded frames); without, it never waits (the engine's own small
// frames: deadlines must not stall). It reports false if the queue is
// closed; buf is then the caller's again.
func (q *writeQueue) put(buf []byte, wait, unasked bool) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for wait && !q.closed && q.bytes > 0 && q.bytes+len(buf) > q.limit {
		q.cond.Wait()
	}
	if q.closed {
		return false
	}
	if q.in += int64(len(buf)); unasked {
		q.unaskedEnd = q.in
	}
	if q.try != nil && !q.direct && !q.held && q.bytes == 0 {
		q.direct = true // the writer waits, so no line overtakes this one
		q.mu.Unlock()
		n := q.try(buf)
		q.mu.Lock()
		q.direct = false
		q.out += int64(n)
		if n == len(buf) {
			putLine(buf)
			if q.bytes > 0 { // lines put meanwhile: wake the writer, only then
				q.cond.Broadcast()
			}
			return true
		}
		buf = buf[n:]
		q.items = slices.Insert(q.items, q.head, buf) // before the lines put meanwhile
	} else {
		q.items = append(q.items, buf)
	}
	q.bytes += len(buf)
	q.cond.Broadcast()
	return true
}

// maxBatch is how many bytes of queued lines the writer takes for one
// Write: enough to turn a burst of small frames into one system call,
// small enough that the copy stays cheap.
const maxBatch = 64 << 10

// pop waits for lines and appends the oldest ones, up to maxBatch bytes (at
// least one line), to dst; false when the queue is closed. Calling pop
// again tells the queue the previous batch is written.
func (q *writeQueue) pop(dst []byte) ([]byte, bool) {
	q.mu.Lock()
	q.held = false
	for !q.closed && (q.bytes == 0 || q.direct) {
		q.cond.Wait()
	}
	if q.closed {
		q.mu.Unlock()
		return dst, false
	}
	full, start := q.bytes >= q.limit, len(dst)
	for ; q.head < len(q.items); q.head++ {
		b := q.items[q.head]
		if len(dst) > start && len(dst)-start+len(b) > maxBatch {
			break
		}
		dst = append(dst, b...)
		putLine(b)
		q.items[q.head] = nil
	}
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	q.bytes -= len(dst) - start
	q.held = true
	q.cond.Broadcast()
	room := full && q.bytes < q.limit
	q.mu.Unlock()
	if room && q.onRoom != nil {
		q.onRoom()
	}
	return dst, true
}

// wrote records n bytes the writer goroutine wrote into the pipe.
func (q *writeQueue) wrote(n int) {
	q.mu.Lock()
	q.out += int64(n)
	q.mu.Unlock()
}

// unaskedUnread reports whether an unasked frame may still be unread by
// the side: not yet written, or among the last slack bytes written.
func (q *writeQueue) unaskedUnread() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.unaskedEnd > 0 && q.unaskedEnd > q.out-q.slack
}

// hasRoom reports whether the queue is under its limit (or closed, when
// nothing more will wait in it): the poller reads the sides that send to
// it only then, which is its back-pressure.
func (q *writeQueue) hasRoom() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed || q.bytes < q.limit
}

// close drops what is queued and wakes every waiter, onRoom's too.
func (q *writeQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.items, q.head, q.bytes = nil, 0, 0
	q.cond.Broadcast()
	q.mu.Unlock()
	if q.onRoom != nil {
		q.onRoom()
	}
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
