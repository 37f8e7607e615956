package worker

import (
	"context"
	"errors"
)

// Broker is a queue of tasks. Pull is called only while the worker holds a
// free slot, so a worker never holds more tasks than it has slots.
type Broker interface {
	// Pull waits for the next task, up to a poll interval of the broker's
	// own; (nil, nil) means none came. It is not interrupted by ctx once the
	// broker has handed a task over (so none is left half taken): a caller
	// that is stopping gives such a task back with Delivery.Return.
	Pull(ctx context.Context) (Delivery, error)
	// Close releases the broker's connections.
	Close() error
}

// Delivery is one task pulled and not yet settled. Exactly one of Complete,
// Return and Dead settles it.
type Delivery interface {
	Raw() []byte // the task's bytes as queued
	// Redelivered is how many times the task was delivered before this one
	// (0 when the broker cannot tell).
	Redelivered() int
	// InProgress tells the broker the task is still being judged, so a long
	// run is not handed to another worker; brokers without a lease ignore it.
	InProgress(ctx context.Context) error
	// Complete stores the result, then acknowledges the task. A result that
	// cannot be stored is kept where the broker can replay it, and the task
	// is not acknowledged (ErrResultKept).
	Complete(ctx context.Context, result []byte) error
	// Return gives the task back to the queue at once, for another worker.
	Return(ctx context.Context) error
	// Dead moves the task to the dead-letter queue with the reason.
	Dead(ctx context.Context, reason string) error
}

// ErrResultKept: Complete could not store the result in the broker and
// kept it to replay later (Neuro OJ: WORK_DIR/fallback-results).
var ErrResultKept = errors.New("result kept for replay")
