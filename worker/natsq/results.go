package natsq

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/tether-dev/tether/worker"
)

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
