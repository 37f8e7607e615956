package dual

import "sync"

// writeQueue holds the lines waiting for one side's stdin. Any goroutine may
// put; exactly one writer goroutine pops. Buffers put are owned by the queue
// until popped, then by the writer.
type writeQueue struct {
	mu     sync.Mutex
	cond   sync.Cond // signalled on put, pop, close and when a direct write ends
	items  [][]byte
	head   int
	bytes  int
	limit  int
	closed bool
	direct bool   // a putter is writing to the pipe itself (see putDirect); the writer waits
	busy   bool   // the writer holds a popped batch it may not have written yet
	onRoom func() // called, without the lock, when a pop brings the queue back under its limit

	// Positions in the stream of bytes for the side's stdin: in counts the
	// bytes accepted, out those written into the pipe, unaskedEnd where the
	// last buffer holding an unasked frame (Action.Unasked) ended.
	in, out, unaskedEnd int64
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
func (q *writeQueue) put(buf []byte, wait, unasked bool) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for wait && !q.closed && q.bytes > 0 && q.bytes+len(buf) > q.limit {
		q.cond.Wait()
	}
	if q.closed {
		return false
	}
	q.accepted(len(buf), unasked)
	q.items = append(q.items, buf)
	q.bytes += len(buf)
	q.cond.Broadcast()
	return true
}

// accepted moves the in position past n bytes just accepted. q.mu held.
func (q *writeQueue) accepted(n int, unasked bool) {
	q.in += int64(n)
	if unasked {
		q.unaskedEnd = q.in
	}
}

// wrote records n bytes the writer goroutine wrote into the pipe.
func (q *writeQueue) wrote(n int) {
	q.mu.Lock()
	q.out += int64(n)
	q.mu.Unlock()
}

// unaskedUnread reports whether an unasked frame may still be unread by
// the side: not yet written, or among the last slack bytes written (what
// the pipe can hold).
func (q *writeQueue) unaskedUnread(slack int64) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.unaskedEnd > 0 && q.unaskedEnd > q.out-slack
}

// hasRoom reports whether the queue is under its limit (or closed, when
// nothing more will wait in it): a poller reads the sides that send to it
// only then, which is its back-pressure.
func (q *writeQueue) hasRoom() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed || q.bytes < q.limit
}

// putDirect is put(buf, wait) that first tries to skip the queue: when
// nothing is queued it calls try, which must write as much of buf as the
// pipe takes now without blocking and report how much. Only what try did
// not write is queued (before anything put meanwhile). It returns false,
// like put, if the queue is closed; buf is then the caller's again. try
// runs without the lock; while it runs the writer goroutine does not pop,
// so lines keep their order.
//
// It writes directly only when the queue is empty and the writer holds no
// batch (busy), so a direct write never overtakes a line put before it.
func (q *writeQueue) putDirect(buf []byte, try func([]byte) int, wait, unasked bool) bool {
	q.mu.Lock()
	if q.closed || q.direct || q.head != len(q.items) || q.busy {
		q.mu.Unlock()
		return q.put(buf, wait, unasked)
	}
	q.direct = true
	q.mu.Unlock()
	n := try(buf)
	q.mu.Lock()
	defer q.mu.Unlock()
	q.direct = false
	if q.closed {
		return false
	}
	q.accepted(len(buf), unasked)
	q.out += int64(n)
	if n == len(buf) {
		putLine(buf)
		// Wake the writer only for lines put while try ran: waking it for
		// nothing costs an OS thread wake-up per frame.
		if q.head != len(q.items) {
			q.cond.Broadcast()
		}
		return true
	}
	rest := buf[n:]
	q.items = append(q.items, nil)
	copy(q.items[q.head+1:], q.items[q.head:])
	q.items[q.head] = rest
	q.bytes += len(rest)
	q.cond.Broadcast()
	return true
}

// maxBatch is how many bytes of queued lines the writer takes for one
// Write: enough to turn a burst of small frames into one system call,
// small enough that the writer's copy stays cheap.
const maxBatch = 64 << 10

// popBatch waits for lines and moves the oldest ones, up to maxBatch bytes
// (at least one line), onto dst; false when the queue is closed. The
// buffers moved are the caller's from then on. Calling popBatch again
// tells the queue the previous batch is written.
func (q *writeQueue) popBatch(dst [][]byte) ([][]byte, bool) {
	q.mu.Lock()
	dst, ok, room := q.popBatchLocked(dst)
	q.mu.Unlock()
	if room && q.onRoom != nil {
		q.onRoom()
	}
	return dst, ok
}

// popBatchLocked is popBatch with q.mu held; room reports that this pop
// brought the queue from its limit back under it.
func (q *writeQueue) popBatchLocked(dst [][]byte) (_ [][]byte, ok, room bool) {
	q.busy = false // the writer is back: its last batch is written
	for !q.closed && (q.head == len(q.items) || q.direct) {
		q.cond.Wait()
	}
	if q.closed {
		return dst, false, false
	}
	taken := 0
	for q.head < len(q.items) {
		buf := q.items[q.head]
		if taken > 0 && taken+len(buf) > maxBatch {
			break
		}
		dst = append(dst, buf)
		taken += len(buf)
		q.items[q.head] = nil
		q.head++
	}
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	full := q.bytes >= q.limit
	q.bytes -= taken
	q.busy = true
	q.cond.Broadcast()
	return dst, true, full && q.bytes < q.limit
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
