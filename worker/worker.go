package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/defaults"
	"github.com/tether-dev/tether/worker/internal/periodic"
)

// Defaults of Config.
const (
	DefaultDrain     = 60 * time.Second
	DefaultHeartbeat = 10 * time.Second
	// settleTimeout bounds each call that settles a task with the broker
	// after its run, even while shutting down.
	settleTimeout = 30 * time.Second
)

// Config of a Worker.
type Config struct {
	Broker Broker
	// Judge judges one task on a slot's CPUs (Judger.Judge); a non-nil
	// error means ctx ended the run and the task goes back to the queue.
	Judge func(ctx context.Context, t *Task, cpus SlotCPUs) (*Result, error)
	// Slots are the slots, one per concurrent task, with their CPUs.
	Slots []SlotCPUs
	// Drain is how long running tasks may go on after Run's stop context
	// ends; what is unfinished then goes back to the queue.
	Drain time.Duration
	// Heartbeat is how often a running task is reported in progress.
	Heartbeat time.Duration
	// MaxTaskBytes is the largest task judged (DefaultMaxTaskBytes when 0):
	// a larger one goes to the dead letters before it is decoded.
	MaxTaskBytes int
	Log          *slog.Logger
	Metrics      *Metrics // nil: none
}

// Worker pulls tasks into free slots and judges them.
type Worker struct {
	cfg Config
}

// New checks cfg and applies its defaults.
func New(cfg Config) (*Worker, error) {
	if cfg.Broker == nil || cfg.Judge == nil {
		return nil, errors.New("worker: a broker and a judge are needed")
	}
	if len(cfg.Slots) == 0 {
		cfg.Slots = make([]SlotCPUs, 1)
	}
	defaults.Positive(&cfg.Drain, DefaultDrain)
	defaults.Positive(&cfg.Heartbeat, DefaultHeartbeat)
	defaults.Positive(&cfg.MaxTaskBytes, DefaultMaxTaskBytes)
	cfg.Log = defaults.Logger(cfg.Log)
	return &Worker{cfg: cfg}, nil
}

// Run pulls and judges until stop ends. Then it pulls no more, lets the
// running tasks finish for up to Drain, and gives back to the queue at once
// what is still unfinished; kill ending cuts the drain short. Run returns
// when every task it took is settled (nil), or an error from the first pull
// when the broker cannot be reached at all.
func (w *Worker) Run(stop, kill context.Context) error {
	judgeCtx, cancelJudges := context.WithCancel(context.WithoutCancel(kill))
	defer cancelJudges()
	defer context.AfterFunc(kill, cancelJudges)()

	free := make(chan int, len(w.cfg.Slots))
	for i := range w.cfg.Slots {
		free <- i
	}
	var wg sync.WaitGroup
	backoff := time.Duration(0)
	log := w.cfg.Log
pull:
	for {
		var slot int
		select {
		case slot = <-free:
		case <-stop.Done():
			break pull
		}
		waitStart := time.Now()
		d, err := w.cfg.Broker.Pull(stop)
		if err != nil {
			free <- slot
			if stop.Err() != nil {
				break pull
			}
			backoff = min(max(2*backoff, 100*time.Millisecond), 5*time.Second)
			log.Warn("broker unreachable, retrying", "error", err.Error(), "retry_in", backoff.String())
			w.cfg.Metrics.brokerError()
			select {
			case <-time.After(backoff):
			case <-stop.Done():
				break pull
			}
			continue
		}
		backoff = 0
		if d == nil {
			free <- slot
			continue
		}
		w.cfg.Metrics.pulled(time.Since(waitStart), d.Redelivered())
		if stop.Err() != nil {
			// Taken as the stop came: give it back untouched.
			w.settle(log, d, "", func(ctx context.Context) error { return d.Return(ctx) })
			free <- slot
			break pull
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { free <- slot }()
			w.handle(judgeCtx, d, w.cfg.Slots[slot])
		}()
	}

	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	drain := time.NewTimer(w.cfg.Drain)
	defer drain.Stop()
	select {
	case <-done:
	case <-drain.C:
		log.Warn("drain time is up; giving back the unfinished tasks", "drain", w.cfg.Drain.String())
		cancelJudges()
		<-done
	case <-judgeCtx.Done():
		<-done
	}
	return nil
}

// handle judges one delivery and settles it.
func (w *Worker) handle(ctx context.Context, d Delivery, cpus SlotCPUs) {
	log := w.cfg.Log
	if size := len(d.Raw()); size > w.cfg.MaxTaskBytes {
		reason := fmt.Sprintf("%v: the task is %d bytes, over this worker's cap of %d (--max-task-mb, env TETHER_MAX_TASK_MB)", ErrBadTask, size, w.cfg.MaxTaskBytes)
		log.Warn("task too large, moved to dead letters unread", "error", reason)
		w.settle(log, d, "", func(ctx context.Context) error { return d.Dead(ctx, reason) })
		return
	}
	t, err := ParseTask(d.Raw())
	if err != nil {
		log.Warn("bad task, moved to dead letters", "error", err.Error())
		w.settle(log, d, "", func(ctx context.Context) error { return d.Dead(ctx, err.Error()) })
		return
	}
	log = log.With("submission_id", t.SubmissionID, "rejudge_seq", t.Seq())
	log.Info("judging", "redelivered", d.Redelivered())
	m := w.cfg.Metrics
	m.started()
	start := time.Now()

	hbCtx, stopHB := context.WithCancel(ctx)
	var hb sync.WaitGroup
	hb.Add(1)
	go func() {
		defer hb.Done()
		periodic.Every(hbCtx, w.cfg.Heartbeat, func(ctx context.Context) {
			if err := d.InProgress(ctx); err != nil && ctx.Err() == nil {
				log.Warn("in-progress heartbeat failed", "error", err.Error())
			}
		})
	}()
	res, err := w.cfg.Judge(ctx, t, cpus)
	judgeTime := time.Since(start)
	stopHB()
	hb.Wait()
	m.finished()
	if err != nil {
		log.Info("unfinished, giving it back to the queue", "reason", err.Error())
		w.settle(log, d, t.SubmissionID, func(ctx context.Context) error { return d.Return(ctx) })
		return
	}
	m.observe(res.Status, time.Since(start))
	body, err := json.Marshal(res)
	if err != nil { // cannot happen: Details is valid JSON from the judge
		body, _ = json.Marshal(systemError(t, "cannot encode the result: "+err.Error()))
	}
	w.settle(log, d, t.SubmissionID, func(ctx context.Context) error { return d.Complete(ctx, body) })
	// judge_ms is the judging (package included); seconds adds settling
	// with the broker: the difference is the queue's own cost.
	log.Info("judged", "status", res.Status, "score", res.Score, "time_ms", res.TimeMs,
		"judge_ms", float64(judgeTime)/float64(time.Millisecond), "seconds", time.Since(start).Seconds())
}

// settle runs one settling call with its own deadline: the run's context
// may be over (a drain), and the task must still be settled.
func (w *Worker) settle(log *slog.Logger, d Delivery, id string, f func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
	defer cancel()
	err := f(ctx)
	switch {
	case errors.Is(err, ErrResultKept):
		log.Error("result kept for replay; the task stays unacknowledged", "error", err.Error())
	case err != nil:
		log.Error("cannot settle the task with the broker", "error", err.Error())
	}
}
