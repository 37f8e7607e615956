// Package natsq is the judge queue on NATS JetStream: a work-queue stream
// of tasks, one of results, a dead-letter subject; at-least-once with an
// explicit ack after the result is stored, in-progress heartbeats while a
// task runs, redelivery after AckWait, a delivery limit, and duplicates
// dropped by Nats-Msg-Id. Bodies are the task and result JSON of
// package worker. See docs/worker.md.
package natsq

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tether-dev/tether/internal/defaults"
	"github.com/tether-dev/tether/worker"
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

var plainToken = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// ResultSubject is where the result of a submission is published, one
// subject per id: a subject token may not hold '.', '*', '>' or spaces, so
// an id is its own token only when it is plain and does not start with
// 'x'; every other id is 'x' and its bytes in hex. The two forms never meet
// (only the second starts with 'x'), so no two ids share a subject.
func ResultSubject(submissionID string) string {
	if plainToken.MatchString(submissionID) && submissionID[0] != 'x' {
		return ResultPrefix + submissionID
	}
	return ResultPrefix + "x" + hex.EncodeToString([]byte(submissionID))
}

// Enqueue publishes a task with its Nats-Msg-Id.
func (b *Broker) Enqueue(ctx context.Context, task []byte, submissionID string, seq int64) error {
	_, err := b.js.Publish(ctx, TaskSubject, task, jetstream.WithMsgID(MsgID(submissionID, seq)))
	return err
}

// WaitResult waits for the result of one submission's rejudge seq and
// returns it, leaving it in the stream for FetchResult. A message on its
// subject whose submission_id is another (or that does not parse), or
// whose rejudge_seq is another, is not its result and is skipped. The wait
// outlives a broker restart: the connection reconnects, and the ordered
// consumer, made again whenever it reports trouble or ends, reads the
// subject from the start (results are kept, so one published while the
// broker was away is still found).
func (b *Broker) WaitResult(ctx context.Context, submissionID string, seq int64) ([]byte, error) {
	found := make(chan []byte, 1)
	// Besides the consumer, the kept result is looked up directly now and
	// then: a belt to the consumer's braces across restarts.
	recheck := time.NewTicker(resultRecheck)
	defer recheck.Stop()
	for {
		trouble := make(chan error, 1)
		cc, err := b.watchResults(ctx, submissionID, seq, found, trouble)
		if err == nil {
			var res []byte
			res, err = b.waitFound(ctx, cc, submissionID, seq, found, trouble, recheck.C)
			cc.Stop()
			if res != nil {
				return res, nil
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
		}
		if b.nc.IsClosed() {
			return nil, err
		}
		// The broker is restarting (or its JetStream not ready yet after a
		// start): make the consumer again shortly.
		b.opts.Log.Debug("making the result consumer again", "submission_id", submissionID, "error", err.Error())
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case res := <-found:
			return res, nil
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// waitFound waits on one consumer: for its result, for ctx, or for the
// trouble that means it must be made again (an error it met, its end).
func (b *Broker) waitFound(ctx context.Context, cc jetstream.ConsumeContext, submissionID string, seq int64,
	found <-chan []byte, trouble <-chan error, recheck <-chan time.Time) ([]byte, error) {
	for {
		select {
		case res := <-found:
			return res, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		case err := <-trouble:
			return nil, err
		case <-cc.Closed():
			return nil, errors.New("the result consumer ended")
		case <-recheck:
			if res, ok := b.keptResult(ctx, submissionID, seq); ok {
				return res, nil
			}
		}
	}
}

// watchResults starts an ordered consumer over the submission's result
// subject that sends its first matching result to found, and any error it
// meets to trouble.
func (b *Broker) watchResults(ctx context.Context, submissionID string, seq int64, found chan<- []byte, trouble chan<- error) (jetstream.ConsumeContext, error) {
	// A request sent while the broker comes back may never be answered:
	// each is bounded, and the caller tries again.
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	cons, err := b.js.OrderedConsumer(rctx, ResultStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{ResultSubject(submissionID)}, DeliverPolicy: jetstream.DeliverAllPolicy,
		InactiveThreshold: time.Minute,
	})
	if err != nil {
		return nil, err
	}
	return cons.Consume(func(msg jetstream.Msg) {
		if !b.isResultOf(msg.Subject(), msg.Data(), submissionID, seq) {
			return
		}
		select {
		case found <- msg.Data():
		default:
		}
	}, jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
		select {
		case trouble <- err:
		default:
		}
	}))
}

// isResultOf tells whether a message on a result subject is the result of
// the submission's rejudge seq (a result without rejudge_seq is of any).
func (b *Broker) isResultOf(subject string, data []byte, submissionID string, seq int64) bool {
	got, ok := worker.ResultSubmissionID(data)
	if !ok || got != submissionID {
		b.opts.Log.Warn("skipped a message on a result subject that is not the submission's result",
			"subject", subject, "want_submission_id", submissionID, "submission_id", got)
		return false
	}
	var r struct {
		RejudgeSeq *int64 `json:"rejudge_seq"`
	}
	json.Unmarshal(data, &r)
	return r.RejudgeSeq == nil || *r.RejudgeSeq == seq
}

// resultRecheck is how often WaitResult looks the result up directly,
// besides its consumer; requestTimeout bounds each of its requests.
const (
	resultRecheck  = 2 * time.Second
	requestTimeout = 5 * time.Second
)

// keptResult is the latest result kept for the submission when it is the
// rejudge seq's.
func (b *Broker) keptResult(ctx context.Context, submissionID string, seq int64) ([]byte, bool) {
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	res, err := b.FetchResult(rctx, submissionID)
	if err != nil || !b.isResultOf(ResultSubject(submissionID), res, submissionID, seq) {
		return nil, false
	}
	return res, true
}

// ErrNoResult: the broker keeps no result for the submission (none yet, or
// it is older than ResultRetention).
var ErrNoResult = errors.New("no result kept for this submission")

// FetchResult returns the latest result kept for the submission, whatever
// its rejudge seq; ErrNoResult when there is none.
func (b *Broker) FetchResult(ctx context.Context, submissionID string) ([]byte, error) {
	s, err := b.js.Stream(ctx, ResultStream)
	if err != nil {
		return nil, err
	}
	m, err := s.GetLastMsgForSubject(ctx, ResultSubject(submissionID))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, ErrNoResult
	}
	if err != nil {
		return nil, err
	}
	if got, ok := worker.ResultSubmissionID(m.Data); !ok || got != submissionID {
		return nil, fmt.Errorf("the latest message on %s is not a result of %q: %w", m.Subject, submissionID, ErrNoResult)
	}
	return m.Data, nil
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
