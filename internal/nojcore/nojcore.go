// Package nojcore is a test stand-in for Neuro OJ's core, the other side of
// its judge queue on Redis, built from the protocol's facts (docs/worker.md):
// a producer that checks the queue's length and LPUSHes in one Lua script, a
// sweeper that requeues what stays in :processing too long, and a result
// consumer that applies a result once per (submission_id, rejudge_seq).
// Only tests use it.
package nojcore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// MinimalTask is a task with the given submission id and every other field
// a worker needs, at its smallest: for tests of the queue, not of the run.
func MinimalTask(id string) []byte {
	b, _ := json.Marshal(map[string]any{"submission_id": id, "problem_id": 1, "language": "python", "code": "",
		"runtime_config": map[string]any{
			"evaluator": map[string]any{"image": "i", "command": "c", "time_limit_ms": 1, "memory_limit_mb": 1},
			"solution":  map[string]any{"image": "i", "call_timeout_ms": 1, "memory_limit_mb": 1}}})
	return b
}

// Keys of Neuro OJ's queue.
const (
	Queue       = "noj:judge:queue"
	Processing  = Queue + ":processing"
	Dead        = Queue + ":dead"
	ResultQueue = "noj:judge:results"
)

// ErrQueueFull: the producer's cap was reached; nothing was pushed.
var ErrQueueFull = errors.New("judge queue full")

// produceScript pushes only while the queue is under the cap, so no other
// producer can slip in between LLEN and LPUSH.
var produceScript = redis.NewScript(`
local n = redis.call('LLEN', KEYS[1])
if n >= tonumber(ARGV[2]) then return -1 end
return redis.call('LPUSH', KEYS[1], ARGV[1])`)

// Produce enqueues task unless the queue holds max tasks already.
func Produce(ctx context.Context, c *redis.Client, task []byte, max int) error {
	n, err := produceScript.Run(ctx, c, []string{Queue}, task, max).Int()
	if err != nil {
		return err
	}
	if n < 0 {
		return ErrQueueFull
	}
	return nil
}

// Sweeper requeues a task seen in :processing for longer than Timeout,
// as the core does (it has no heartbeat: it only sees how long).
type Sweeper struct {
	C       *redis.Client
	Timeout time.Duration
	seen    map[string]time.Time
}

// Sweep is one pass; it returns how many tasks it requeued.
func (s *Sweeper) Sweep(ctx context.Context) (int, error) {
	if s.seen == nil {
		s.seen = map[string]time.Time{}
	}
	items, err := s.C.LRange(ctx, Processing, 0, -1).Result()
	if err != nil {
		return 0, err
	}
	now, requeued := time.Now(), 0
	present := map[string]bool{}
	for _, raw := range items {
		present[raw] = true
		first, ok := s.seen[raw]
		if !ok {
			s.seen[raw] = now
			continue
		}
		if now.Sub(first) < s.Timeout {
			continue
		}
		// Take it out first: if a worker acked it meanwhile, nothing moves.
		if n, err := s.C.LRem(ctx, Processing, 1, raw).Result(); err != nil || n == 0 {
			continue
		}
		if err := s.C.LPush(ctx, Queue, raw).Err(); err != nil {
			return requeued, err
		}
		delete(s.seen, raw)
		requeued++
	}
	for raw := range s.seen {
		if !present[raw] {
			delete(s.seen, raw)
		}
	}
	return requeued, nil
}

// Result is a result as the core reads it.
type Result struct {
	SubmissionID string          `json:"submission_id"`
	Status       string          `json:"status"`
	Score        int64           `json:"score"`
	Output       string          `json:"output"`
	Details      json.RawMessage `json:"details"`
	TimeMs       int64           `json:"time_ms"`
	MemoryKB     int64           `json:"memory_kb"`
	RejudgeSeq   *int64          `json:"rejudge_seq"`
}

// Consumer pops results and applies each (submission_id, rejudge_seq) once.
type Consumer struct {
	C          *redis.Client
	mu         sync.Mutex
	Applied    map[string]Result // by submission_id
	Duplicates int
	Raw        []string // every result line popped, as pushed
}

// Drain pops every result now in the list; it returns how many it applied.
func (c *Consumer) Drain(ctx context.Context) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Applied == nil {
		c.Applied = map[string]Result{}
	}
	applied := 0
	for {
		raw, err := c.C.RPop(ctx, ResultQueue).Result()
		if errors.Is(err, redis.Nil) {
			return applied, nil
		}
		if err != nil {
			return applied, err
		}
		c.Raw = append(c.Raw, raw)
		var r Result
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			return applied, fmt.Errorf("result %q: %v", raw, err)
		}
		key := r.SubmissionID
		if prev, ok := c.Applied[key]; ok && seq(prev.RejudgeSeq) >= seq(r.RejudgeSeq) {
			c.Duplicates++
			continue
		}
		c.Applied[key] = r
		applied++
	}
}

func seq(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// Count is the number of submissions with an applied result.
func (c *Consumer) Count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.Applied)
}
