package wire

import (
	"errors"
	"sync"
	"time"
)

// DefaultPoolBytes is the server-wide cap of a Pool made with max <= 0:
// two frames of DefaultMaxFrame at once, and with what the garbage
// collector has yet to reclaim still far under 512 MiB.
const DefaultPoolBytes = 128 << 20

// ErrEvicted is a reader's error when the server ran short of memory for
// unfinished messages and this connection was the slowest to finish one.
var ErrEvicted = errors.New("wire: closed: the server is holding too many unfinished messages and this connection was the slowest; send smaller messages or retry later")

// Pool caps the bytes that the readers of many connections hold for
// messages they have not finished reading. A reader given a Hold asks for
// memory before its buffer grows; when the pool is full, the connection
// sending slowest (fewest bytes held per second since its message began)
// is evicted, whether it is another one (its evict function is called:
// it closes the connection) or the one asking (its read fails with
// ErrEvicted). Safe for concurrent use.
type Pool struct {
	max int64

	mu    sync.Mutex
	used  int64
	holds map[*Hold]struct{}
}

// NewPool returns a pool of max bytes (DefaultPoolBytes when <= 0).
func NewPool(max int64) *Pool {
	if max <= 0 {
		max = DefaultPoolBytes
	}
	return &Pool{max: max, holds: make(map[*Hold]struct{})}
}

// Used is the bytes held now.
func (p *Pool) Used() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.used
}

// Take reserves n bytes for a message read whole and being handled, if
// they fit now; it never evicts anyone. Give them back with Give.
func (p *Pool) Take(n int64) bool {
	if p == nil || n <= 0 {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.used+n > p.max {
		return false
	}
	p.used += n
	return true
}

// Give returns n bytes reserved by Take.
func (p *Pool) Give(n int64) {
	if p == nil || n <= 0 {
		return
	}
	p.mu.Lock()
	p.used -= n
	p.mu.Unlock()
}

// Hold is one connection's share of a Pool. A nil *Hold holds nothing and
// refuses nothing.
type Hold struct {
	pool    *Pool
	evict   func()
	held    int64     // under pool.mu
	since   time.Time // when held last grew from zero; under pool.mu
	evicted bool      // under pool.mu
	settled bool      // its message is read whole: held, but not evictable; under pool.mu
}

// Settle says the message is read whole and is being handled: its bytes
// stay counted until Close or Release, but it is no longer a slow sender
// to evict, until it grows for its next message.
func (h *Hold) Settle() {
	if h == nil {
		return
	}
	h.pool.mu.Lock()
	h.settled = true
	h.pool.mu.Unlock()
}

// Hold returns a new share of the pool; evict closes its connection. Call
// Close when the connection ends.
func (p *Pool) Hold(evict func()) *Hold {
	if p == nil {
		return nil
	}
	return &Hold{pool: p, evict: evict}
}

// Grow asks for n more bytes; ErrEvicted when they cannot be had.
func (h *Hold) Grow(n int64) error {
	if h == nil || n <= 0 {
		return nil
	}
	p := h.pool
	var victims []*Hold
	p.mu.Lock()
	err := func() error {
		if h.evicted {
			return ErrEvicted
		}
		now := time.Now()
		for p.used+n > p.max {
			v := p.slowest(h, now)
			if v == h {
				p.drop(h)
				return ErrEvicted
			}
			p.drop(v)
			victims = append(victims, v)
		}
		if h.held == 0 || h.settled {
			h.since, h.settled = now, false // a new message begins
		}
		h.held += n
		p.used += n
		p.holds[h] = struct{}{}
		return nil
	}()
	p.mu.Unlock()
	for _, v := range victims {
		v.evict()
	}
	return err
}

// slowest is the hold with the lowest rate of bytes held per second since
// its message began, among those holding any, asking included.
func (p *Pool) slowest(asking *Hold, now time.Time) *Hold {
	victim, lowest := asking, rate(asking, now)
	for o := range p.holds {
		if o == asking || o.held == 0 || o.settled {
			continue
		}
		if r := rate(o, now); r < lowest {
			victim, lowest = o, r
		}
	}
	return victim
}

func rate(h *Hold, now time.Time) float64 {
	if h.held == 0 {
		return 1e300 // holds nothing: evicting it frees nothing
	}
	return float64(h.held) / max(now.Sub(h.since).Seconds(), 1e-3)
}

// drop takes everything h holds back and marks it evicted; under p.mu.
func (p *Pool) drop(h *Hold) {
	p.used -= h.held
	h.held = 0
	h.evicted = true
	delete(p.holds, h)
}

// Release gives n bytes back.
func (h *Hold) Release(n int64) {
	if h == nil || n <= 0 {
		return
	}
	p := h.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	if h.evicted {
		return
	}
	n = min(n, h.held)
	h.held -= n
	p.used -= n
	if h.held == 0 {
		delete(p.holds, h)
	}
}

// Close gives everything back; the hold refuses growth afterwards.
func (h *Hold) Close() {
	if h == nil {
		return
	}
	p := h.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	if !h.evicted {
		p.drop(h)
	}
}
