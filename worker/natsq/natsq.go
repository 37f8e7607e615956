// Package natsq is the judge queue on NATS JetStream: a work-queue stream
// of tasks, one of results, a dead-letter subject; at-least-once with an
// explicit ack after the result is stored, in-progress heartbeats while a
// task runs, redelivery after AckWait, a delivery limit, and duplicates
// dropped by Nats-Msg-Id. Bodies are the task and result JSON of
// package worker. See docs/worker.md.
package natsq

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tether-dev/tether/internal/defaults"
)

// Names and defaults.
const (
	TaskStream     = "TETHER_TASKS"
	TaskSubject    = "tether.tasks"
	ResultStream   = "TETHER_RESULTS"
	ResultPrefix   = "tether.results." // + the submission's subject token
	DeadStream     = "TETHER_DEAD"
	DeadSubject    = "tether.dead"
	Durable        = "tether-workers"
	DefaultAckWait = 30 * time.Second
	// DefaultMaxDeliver is how many times a task is handed out before it
	// goes to dead letters.
	DefaultMaxDeliver = 3
	DefaultPoll       = time.Second
	// ReasonHeader carries why a task went to dead letters.
	ReasonHeader = "Tether-Dead-Reason"
	// ResultRetention is how long the result stream keeps a result: it
	// can be fetched by submission id (tether result ID) until then.
	ResultRetention = 7 * 24 * time.Hour
)

// Options of a Broker.
type Options struct {
	URL        string // nats://host:4222
	Token      string // the server's token; "" for none (or one in URL)
	AckWait    time.Duration
	MaxDeliver int
	Poll       time.Duration
	Log        *slog.Logger
}

// Broker is a connection to the JetStream queue. Safe for concurrent use.
type Broker struct {
	opts Options
	nc   *nats.Conn
	js   jetstream.JetStream
	cons jetstream.Consumer
	// closed is closed once the connection is, after Close's drain.
	closed chan struct{}
}

func (o *Options) defaults() {
	defaults.Positive(&o.AckWait, DefaultAckWait)
	defaults.Positive(&o.MaxDeliver, DefaultMaxDeliver)
	defaults.Positive(&o.Poll, DefaultPoll)
	o.Log = defaults.Logger(o.Log)
}

// Redacted is u without its password or token, for messages.
func Redacted(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return "(an unparsable URL)"
	}
	if parsed.User != nil {
		parsed.User = url.User("REDACTED")
	}
	return parsed.String()
}

// Connect connects and makes sure the streams exist; it does not make the
// workers' consumer (Open does), so a submitter can use it.
func Connect(ctx context.Context, opts Options) (*Broker, error) {
	opts.defaults()
	log := opts.Log
	closed := make(chan struct{})
	copts := []nats.Option{
		nats.Name("tether"),
		nats.MaxReconnects(-1), // a broker lost while running is retried
		nats.ReconnectWait(250 * time.Millisecond),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("NATS connection lost, reconnecting", "url", Redacted(opts.URL), "error", err.Error())
			}
		}),
		nats.ReconnectHandler(func(*nats.Conn) { log.Info("NATS connection back", "url", Redacted(opts.URL)) }),
		nats.DrainTimeout(drainTimeout),
		nats.ClosedHandler(func(*nats.Conn) { close(closed) }),
	}
	if opts.Token != "" {
		copts = append(copts, nats.Token(opts.Token))
	}
	nc, err := nats.Connect(opts.URL, copts...)
	if err != nil {
		return nil, fmt.Errorf("cannot reach NATS at %s: %v (is the server running there? for the embedded one, start tether worker first)", Redacted(opts.URL), err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("NATS at %s: %v", Redacted(opts.URL), err)
	}
	b := &Broker{opts: opts, nc: nc, js: js, closed: closed}
	if err := b.migrateResults(ctx); err != nil {
		nc.Close()
		return nil, fmt.Errorf("NATS at %s: stream %s: %v", Redacted(opts.URL), ResultStream, err)
	}
	for _, sc := range []jetstream.StreamConfig{
		{Name: TaskStream, Subjects: []string{TaskSubject}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute},
		resultStreamConfig,
		{Name: DeadStream, Subjects: []string{DeadSubject}, Storage: jetstream.FileStorage},
	} {
		if _, err := js.CreateOrUpdateStream(ctx, sc); err != nil {
			nc.Close()
			return nil, fmt.Errorf("NATS at %s: stream %s: %v (does the server have JetStream enabled?)", Redacted(opts.URL), sc.Name, err)
		}
	}
	return b, nil
}

// resultStreamConfig keeps every result for ResultRetention (limits
// retention: a waiter reads a result without taking it away), so that it
// can be fetched again by submission id, after a restart too.
var resultStreamConfig = jetstream.StreamConfig{Name: ResultStream, Subjects: []string{ResultPrefix + "*"},
	Retention: jetstream.LimitsPolicy, MaxAge: ResultRetention,
	Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute}

// migrateResults turns a result stream of an earlier tether (work-queue
// retention, which JetStream cannot update in place) into the kept one:
// its results are read, the stream is made anew and they are published
// again on their subjects.
func (b *Broker) migrateResults(ctx context.Context) error {
	s, err := b.js.Stream(ctx, ResultStream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return err
	}
	if info.Config.Retention != jetstream.WorkQueuePolicy {
		return nil
	}
	var kept []*jetstream.RawStreamMsg
	for seq := info.State.FirstSeq; info.State.Msgs > 0 && seq <= info.State.LastSeq; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read result %d to keep it: %w", seq, err)
		}
		kept = append(kept, m)
	}
	if err := b.js.DeleteStream(ctx, ResultStream); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		return err
	}
	if _, err := b.js.CreateOrUpdateStream(ctx, resultStreamConfig); err != nil {
		return err
	}
	for _, m := range kept {
		if _, err := b.js.Publish(ctx, m.Subject, m.Data); err != nil {
			return fmt.Errorf("keep result %d: %w", m.Sequence, err)
		}
	}
	b.opts.Log.Info("result stream now keeps results", "stream", ResultStream, "retention", ResultRetention.String(), "results_moved", len(kept))
	return nil
}

// Open connects as a worker: Connect, and the shared durable consumer of
// the task stream.
func Open(ctx context.Context, opts Options) (*Broker, error) {
	b, err := Connect(ctx, opts)
	if err != nil {
		return nil, err
	}
	b.cons, err = b.js.CreateOrUpdateConsumer(ctx, TaskStream, jetstream.ConsumerConfig{
		Durable:   Durable,
		AckPolicy: jetstream.AckExplicitPolicy,
		AckWait:   b.opts.AckWait,
		// One more than the limit: the delivery past it is seen by a worker,
		// which moves the task to dead letters with the reason.
		MaxDeliver:    b.opts.MaxDeliver + 1,
		MaxAckPending: -1,
	})
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("NATS at %s: consumer %s: %v", Redacted(b.opts.URL), Durable, err)
	}
	return b, nil
}

// JetStream is the connection's JetStream context, for tools and tests.
func (b *Broker) JetStream() jetstream.JetStream { return b.js }

// drainTimeout bounds Close's drain of a connection.
const drainTimeout = 5 * time.Second

// Close drains the connection (what was published and acknowledged
// reaches the server; subscriptions end) and waits until it is closed.
func (b *Broker) Close() error {
	if err := b.nc.Drain(); err != nil {
		b.nc.Close()
	}
	<-b.closed
	return nil
}

// MsgID is the Nats-Msg-Id of a task or result: submission_id:rejudge_seq,
// so the same submission published twice is stored once.
func MsgID(submissionID string, seq int64) string {
	return submissionID + ":" + strconv.FormatInt(seq, 10)
}
