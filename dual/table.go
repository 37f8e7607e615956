package dual

import (
	"time"
	"unsafe"
)

// direction is who waits and who owes an in-flight entry.
type direction uint8

const (
	toSolution  direction = iota // a call: the evaluator waits, the solution owes
	toEvaluator                  // a capability: the solution waits, the evaluator owes
)

func (d direction) waiter() Side {
	if d == toSolution {
		return Evaluator
	}
	return Solution
}

// entry is one call or capability in flight. Entries live in table.slots and
// are reused through a free list, keeping their buffers, so a steady stream
// of calls reuses its memory.
type entry struct {
	dir       direction
	used      bool
	sent      bool   // forwarded to the current solution (calls only)
	heapIdx   int32  // position in table.heap
	id        []byte // decoded id, the key
	rawID     []byte // the id's JSON token, echoed in the engine's own frames
	deadline  time.Time
	logBytes  int       // bytes of log frames kept while this call was in flight
	logFrames int       // log frames kept while this call was in flight
	frame     []byte    // a queued call frame, while no solution is ready
	opened    time.Time // arrival; kept only with Config.ReportCalls
	fn        []byte    // decoded fn or capability name; kept only with Config.ReportCalls
}

// table is the in-flight table keyed by direction and id, with one
// min-heap of deadlines. Not safe for concurrent use.
type table struct {
	ids   [2]map[string]int32 // by direction: id → index in slots
	slots []entry
	free  []int32
	heap  []int32 // entry indexes ordered by deadline
}

func newTable() *table {
	return &table{ids: [2]map[string]int32{make(map[string]int32), make(map[string]int32)}}
}

// count is how many entries of direction d are in flight.
func (t *table) count(d direction) int { return len(t.ids[d]) }

// find returns the index of the entry (d, id), or -1.
func (t *table) find(d direction, id []byte) int32 {
	if i, ok := t.ids[d][string(id)]; ok {
		return i
	}
	return -1
}

// insert adds (d, id) with its deadline; the caller checked it is absent.
func (t *table) insert(d direction, id, rawID []byte, deadline time.Time) int32 {
	i := int32(len(t.slots))
	if n := len(t.free); n > 0 {
		i, t.free = t.free[n-1], t.free[:n-1]
	} else {
		t.slots = append(t.slots, entry{})
	}
	e := &t.slots[i]
	*e = entry{dir: d, used: true, deadline: deadline,
		id: append(e.id[:0], id...), rawID: append(e.rawID[:0], rawID...), frame: e.frame[:0], fn: e.fn[:0]}
	// The key shares e.id's bytes, which stay as they are until remove
	// has deleted it: a call costs no allocation.
	t.ids[d][unsafe.String(unsafe.SliceData(e.id), len(e.id))] = i
	e.heapIdx = int32(len(t.heap))
	t.heap = append(t.heap, i)
	t.up(int(e.heapIdx))
	return i
}

// remove deletes entry i from the index and the heap and frees it. Its
// buffers stay valid until the next insert.
func (t *table) remove(i int32) {
	e := &t.slots[i]
	if !e.used {
		return
	}
	delete(t.ids[e.dir], string(e.id))
	h, last := int(e.heapIdx), len(t.heap)-1
	t.swap(h, last)
	if t.heap = t.heap[:last]; h < last && !t.down(h) {
		t.up(h)
	}
	e.used = false
	if cap(e.frame) > 64<<10 {
		e.frame = nil // do not pin big queued frames
	}
	t.free = append(t.free, i)
}

// earliest returns the entry with the earliest deadline, or -1.
func (t *table) earliest() int32 {
	if len(t.heap) == 0 {
		return -1
	}
	return t.heap[0]
}

// before orders the heap: no entry's deadline is before its parent's.
func (t *table) before(a, b int) bool {
	return t.slots[t.heap[a]].deadline.Before(t.slots[t.heap[b]].deadline)
}

func (t *table) swap(a, b int) {
	t.heap[a], t.heap[b] = t.heap[b], t.heap[a]
	t.slots[t.heap[a]].heapIdx, t.slots[t.heap[b]].heapIdx = int32(a), int32(b)
}

func (t *table) up(j int) {
	for p := (j - 1) / 2; j > 0 && t.before(j, p); j, p = p, (p-1)/2 {
		t.swap(j, p)
	}
}

// down moves heap[j] down to its place; false if it stayed.
func (t *table) down(j int) bool {
	start := j
	for c := 2*j + 1; c < len(t.heap); c = 2*j + 1 {
		if c+1 < len(t.heap) && t.before(c+1, c) {
			c++
		}
		if !t.before(c, j) {
			break
		}
		t.swap(j, c)
		j = c
	}
	return j > start
}
