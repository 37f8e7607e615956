// Package redisq is Neuro OJ's judge queue on Redis lists, byte for byte:
// RPOPLPUSH (a script that leaves tasks over the cap in Redis) or
// BRPOPLPUSH from the task list into its :processing list, results LPUSHed
// to the result list, LREM from :processing only after the result is
// stored, bad tasks to :dead, results that Redis would not take kept in
// WORK_DIR/fallback-results and replayed. See docs/worker.md.
package redisq

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tether-dev/tether/internal/defaults"
	"github.com/tether-dev/tether/worker"
	"github.com/tether-dev/tether/worker/internal/periodic"
)

// Neuro OJ's defaults.
const (
	DefaultQueue       = "noj:judge:queue"
	DefaultResultQueue = "noj:judge:results"
	DefaultPollTimeout = 5 * time.Second
	DefaultReplayEvery = time.Minute
	// SweeperTimeout is how long Neuro OJ's core leaves a task in
	// :processing before it requeues it (or the evaluator's time limit plus
	// SweeperGrace, when that is longer). It has no heartbeat.
	SweeperTimeout = 10 * time.Minute
	SweeperGrace   = 2 * time.Minute
)

// Options of a Broker. Zero values are Neuro OJ's defaults.
type Options struct {
	URL         string // REDIS_URL, redis://[:password@]host:port[/db]
	Queue       string // JUDGE_QUEUE
	ResultQueue string // RESULT_QUEUE
	WorkDir     string // WORK_DIR: fallback-results lives here; "" keeps no fallback
	// MaxTaskBytes is the worker's task cap (worker.DefaultMaxTaskBytes
	// when 0): a larger task is moved to :dead without reaching this
	// process where Pull can tell first (docs/worker.md).
	MaxTaskBytes int
	PollTimeout  time.Duration
	// ReplayEvery is how often kept results are replayed (Neuro OJ: every
	// minute); tests shorten it.
	ReplayEvery time.Duration
	Log         *slog.Logger
	// OnFallbackPending gets the number of results kept on disk after each
	// change.
	OnFallbackPending func(int)
}

// Broker is a connection to Neuro OJ's queue. Safe for concurrent use.
type Broker struct {
	opts       Options
	client     *redis.Client
	processing string
	dead       string
	fallback   *fallbackDir

	stop    context.CancelFunc
	replays sync.WaitGroup
}

// Redacted is u without its password, for messages.
func Redacted(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return "(an unparsable URL)"
	}
	return parsed.Redacted()
}

// Open connects to Redis and checks it answers, replays kept results and
// starts replaying them every ReplayEvery until Close.
func Open(ctx context.Context, opts Options) (*Broker, error) {
	opts.Queue = cmp.Or(opts.Queue, DefaultQueue)
	opts.ResultQueue = cmp.Or(opts.ResultQueue, DefaultResultQueue)
	defaults.Positive(&opts.PollTimeout, DefaultPollTimeout)
	defaults.Positive(&opts.ReplayEvery, DefaultReplayEvery)
	defaults.Positive(&opts.MaxTaskBytes, worker.DefaultMaxTaskBytes)
	opts.Log = defaults.Logger(opts.Log)
	ro, err := redis.ParseURL(opts.URL)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL %s: %v (write redis://[:password@]host:port[/db])", Redacted(opts.URL), err)
	}
	ro.MaxRetries = -1 // a retry of BRPOPLPUSH or LPUSH could move or push twice
	b := &Broker{opts: opts, client: redis.NewClient(ro),
		processing: opts.Queue + ":processing", dead: opts.Queue + ":dead"}
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := b.client.Ping(pingCtx).Err(); err != nil {
		b.client.Close()
		return nil, fmt.Errorf("cannot reach Redis at %s: %v (is redis-server running there, and REDIS_URL right?)", Redacted(opts.URL), err)
	}
	if opts.WorkDir != "" {
		if b.fallback, err = openFallback(opts.WorkDir, opts.MaxTaskBytes, opts.Log, opts.OnFallbackPending); err != nil {
			b.client.Close()
			return nil, err
		}
		b.fallback.replay(ctx, b)
		loopCtx, stop := context.WithCancel(context.Background())
		b.stop = stop
		b.replays.Add(1)
		go func() {
			defer b.replays.Done()
			periodic.Every(loopCtx, opts.ReplayEvery, func(ctx context.Context) { b.fallback.replay(ctx, b) })
		}()
	}
	return b, nil
}

// Close stops the replays and closes the connections.
func (b *Broker) Close() error {
	if b.stop != nil {
		b.stop()
		b.replays.Wait()
	}
	return b.client.Close()
}

// Client is the Redis client, for tools built on the same connection.
func (b *Broker) Client() *redis.Client { return b.client }

// takeScript is RPOPLPUSH queue queue:processing for a task within the
// cap; a larger one goes to queue:dead instead, and only its size comes
// back: it never reaches this process.
var takeScript = redis.NewScript(`
local v = redis.call('LINDEX', KEYS[1], -1)
if not v then return false end
if string.len(v) > tonumber(ARGV[1]) then
  redis.call('RPOP', KEYS[1])
  redis.call('LPUSH', KEYS[3], v)
  return {0, string.len(v)}
end
redis.call('RPOPLPUSH', KEYS[1], KEYS[2])
return {1, v}`)

// Pull takes the next task: from a queue with tasks waiting, by takeScript;
// from an empty one, by BRPOPLPUSH queue queue:processing with the poll
// timeout, where a task arrives whole (the worker then moves one over its
// cap to :dead before decoding it).
func (b *Broker) Pull(ctx context.Context) (worker.Delivery, error) {
	// Not cut short by ctx: a move Redis made must reach us (Broker.Pull).
	ctx = context.WithoutCancel(ctx)
	for {
		res, err := takeScript.Run(ctx, b.client, []string{b.opts.Queue, b.processing, b.dead}, b.opts.MaxTaskBytes).Slice()
		if errors.Is(err, redis.Nil) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("take a task from %s at %s: %w", b.opts.Queue, Redacted(b.opts.URL), err)
		}
		if len(res) != 2 {
			return nil, fmt.Errorf("take a task from %s at %s: the script answered %v", b.opts.Queue, Redacted(b.opts.URL), res)
		}
		if raw, ok := res[1].(string); ok && res[0] == int64(1) {
			return &delivery{b: b, raw: []byte(raw)}, nil
		}
		b.opts.Log.Warn("task too large, moved to dead letters unread", "dead", b.dead,
			"error", fmt.Sprintf("%v: the task is %v bytes, over this worker's cap of %d (--max-task-mb, env TETHER_MAX_TASK_MB)", worker.ErrBadTask, res[1], b.opts.MaxTaskBytes))
	}
	//lint:ignore SA1019 BLMOVE needs Redis 6.2; BRPOPLPUSH works on every Redis
	raw, err := b.client.BRPopLPush(ctx, b.opts.Queue, b.processing, b.opts.PollTimeout).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("BRPOPLPUSH %s at %s: %w", b.opts.Queue, Redacted(b.opts.URL), err)
	}
	return &delivery{b: b, raw: raw}, nil
}

// Enqueue LPUSHes a task, as Neuro OJ's core does.
func (b *Broker) Enqueue(ctx context.Context, task []byte) error {
	return b.client.LPush(ctx, b.opts.Queue, task).Err()
}

type delivery struct {
	b   *Broker
	raw []byte
}

func (d *delivery) Raw() []byte                      { return d.raw }
func (d *delivery) Redelivered() int                 { return 0 }
func (d *delivery) InProgress(context.Context) error { return nil } // Neuro OJ has no heartbeat

// Complete pushes the result (3 tries with backoff), then LREMs the task.
// When every try fails the result is written to fallback-results and the
// task stays in :processing.
func (d *delivery) Complete(ctx context.Context, result []byte) error {
	b := d.b
	var err error
	wait := 200 * time.Millisecond
	for try := 1; try <= 3; try++ {
		if err = b.client.LPush(ctx, b.opts.ResultQueue, result).Err(); err == nil {
			break
		}
		b.opts.Log.Warn("result push failed", "try", try, "error", err.Error())
		if try < 3 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
			}
			wait *= 2
		}
	}
	if err != nil {
		if b.fallback == nil {
			return fmt.Errorf("LPUSH %s: %w (no WORK_DIR to keep it in)", b.opts.ResultQueue, err)
		}
		path, ferr := b.fallback.keep(result, d.raw)
		if ferr != nil {
			return fmt.Errorf("LPUSH %s: %w; and keeping it failed too: %v", b.opts.ResultQueue, err, ferr)
		}
		return fmt.Errorf("%w in %s: LPUSH %s: %v", worker.ErrResultKept, path, b.opts.ResultQueue, err)
	}
	return b.ack(ctx, d.raw)
}

func (b *Broker) ack(ctx context.Context, raw []byte) error {
	if err := b.client.LRem(ctx, b.processing, 1, raw).Err(); err != nil {
		return fmt.Errorf("LREM %s (the result is stored; the sweeper will requeue the task and the core drops the duplicate): %w", b.processing, err)
	}
	return nil
}

// Return puts the task back at the end BRPOPLPUSH takes from, so it is
// next, and takes it out of :processing, in one transaction.
func (d *delivery) Return(ctx context.Context) error {
	b := d.b
	_, err := b.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.RPush(ctx, b.opts.Queue, d.raw)
		p.LRem(ctx, b.processing, 1, d.raw)
		return nil
	})
	if err != nil {
		return fmt.Errorf("give back to %s: %w (the sweeper will requeue it)", b.opts.Queue, err)
	}
	return nil
}

// Dead LPUSHes the task to :dead, then LREMs it from :processing (Neuro
// OJ keeps no reason with it).
func (d *delivery) Dead(ctx context.Context, reason string) error {
	b := d.b
	if err := b.client.LPush(ctx, b.dead, d.raw).Err(); err != nil {
		return fmt.Errorf("LPUSH %s: %w", b.dead, err)
	}
	return b.ack(ctx, d.raw)
}
