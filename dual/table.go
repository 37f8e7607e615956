package dual

import (
	"container/heap"
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
	heap.Fix(byDeadline{t}, int(e.heapIdx))
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
	heap.Remove(byDeadline{t}, int(e.heapIdx))
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

// byDeadline is t.heap as a container/heap.Interface.
type byDeadline struct{ t *table }

func (h byDeadline) Len() int { return len(h.t.heap) }
func (h byDeadline) Less(a, b int) bool {
	return h.t.slots[h.t.heap[a]].deadline.Before(h.t.slots[h.t.heap[b]].deadline)
}
func (h byDeadline) Swap(a, b int) {
	t := h.t
	t.heap[a], t.heap[b] = t.heap[b], t.heap[a]
	t.slots[t.heap[a]].heapIdx, t.slots[t.heap[b]].heapIdx = int32(a), int32(b)
}
func (h byDeadline) Push(any) {} // insert appends; heap.Fix places it
func (h byDeadline) Pop() any { h.t.heap = h.t.heap[:len(h.t.heap)-1]; return nil }
