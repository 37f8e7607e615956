package natsq

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/tether-dev/tether/worker"
)

// Enqueue publishes a task with its Nats-Msg-Id.
func (b *Broker) Enqueue(ctx context.Context, task []byte, submissionID string, seq int64) error {
	_, err := b.js.Publish(ctx, TaskSubject, task, jetstream.WithMsgID(MsgID(submissionID, seq)))
	return err
}

// Pull fetches one task, waiting up to the poll interval. A task past its
// delivery limit goes to dead letters here and Pull reports none.
func (b *Broker) Pull(ctx context.Context) (worker.Delivery, error) {
	batch, err := b.cons.Fetch(1, jetstream.FetchMaxWait(b.opts.Poll))
	if err != nil {
		return nil, fmt.Errorf("fetch from %s at %s: %w", TaskStream, Redacted(b.opts.URL), err)
	}
	var msg jetstream.Msg
	for m := range batch.Messages() {
		msg = m
	}
	if msg == nil {
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, jetstream.ErrNoMessages) {
			return nil, fmt.Errorf("fetch from %s at %s: %w", TaskStream, Redacted(b.opts.URL), err)
		}
		return nil, nil
	}
	d := &delivery{b: b, msg: msg}
	if md, err := msg.Metadata(); err == nil {
		d.delivered = int(md.NumDelivered)
	}
	if d.delivered > b.opts.MaxDeliver {
		reason := fmt.Sprintf("delivered %d times without a result (limit %d): each worker that took it died or gave it back", d.delivered-1, b.opts.MaxDeliver)
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := d.Dead(dctx, reason); err != nil {
			b.opts.Log.Error("cannot move a task to dead letters", "error", err.Error())
		} else {
			b.opts.Log.Warn("task moved to dead letters", "reason", reason)
		}
		return nil, nil
	}
	return d, nil
}

type delivery struct {
	b         *Broker
	msg       jetstream.Msg
	delivered int
}

func (d *delivery) Raw() []byte { return d.msg.Data() }

func (d *delivery) Redelivered() int { return max(d.delivered-1, 0) }

func (d *delivery) InProgress(context.Context) error { return d.msg.InProgress() }

// Complete publishes the result (deduplicated by submission and rejudge
// sequence), then acks the task and waits for the server to confirm.
func (d *delivery) Complete(ctx context.Context, result []byte) error {
	t, err := worker.ParseTask(d.msg.Data())
	if err != nil {
		return err
	}
	if _, err := d.b.js.Publish(ctx, ResultSubject(t.SubmissionID), result, jetstream.WithMsgID(MsgID(t.SubmissionID, t.Seq()))); err != nil {
		// Not acked: AckWait redelivers the task.
		return fmt.Errorf("publish the result of %s: %w", t.SubmissionID, err)
	}
	return d.msg.DoubleAck(ctx)
}

// Return hands the task back at once.
func (d *delivery) Return(context.Context) error { return d.msg.Nak() }

// Dead publishes the task to the dead-letter subject with the reason, then
// terminates its delivery.
func (d *delivery) Dead(ctx context.Context, reason string) error {
	m := nats.NewMsg(DeadSubject)
	m.Data = d.msg.Data()
	m.Header.Set(ReasonHeader, reason)
	if _, err := d.b.js.PublishMsg(ctx, m); err != nil {
		return fmt.Errorf("publish to %s: %w", DeadSubject, err)
	}
	return d.msg.Term()
}
