package service

import (
	"context"
	"log/slog"
	"sync/atomic"

	"github.com/tether-dev/tether/jsonrpc"
)

// progressValue is the value of one $/progress notification of judge.run.
type progressValue struct {
	Phase         string `json:"phase"`
	SubmissionID  string `json:"submission_id,omitempty"`
	Calls         int64  `json:"calls"`
	ElapsedMs     int64  `json:"elapsed_ms"`
	EvaluatorLine string `json:"evaluator_line,omitempty"`
	Dropped       int64  `json:"dropped,omitempty"` // notifications lost to a slow client so far
}

// progressQueue bounds the notifications waiting for a slow client.
const progressQueue = 256

// pump sends progress from its own goroutine, so the judge's callbacks,
// which must return quickly, never wait on the client. offer may be called
// from one goroutine at a time (the judge calls Trace and Progress one at a
// time) and never after stop; stop waits for the goroutine.
type pump struct {
	ch      chan progressValue
	dropped atomic.Int64
	done    chan struct{}
}

func startPump(ctx context.Context, log *slog.Logger) *pump {
	p := &pump{ch: make(chan progressValue, progressQueue), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for v := range p.ch {
			v.Dropped = p.dropped.Load()
			if err := jsonrpc.Progress(ctx, v); err != nil {
				log.Debug("service: progress not sent", "err", err)
			}
		}
	}()
	return p
}

func (p *pump) offer(v progressValue) {
	select {
	case p.ch <- v:
	default:
		p.dropped.Add(1)
	}
}

func (p *pump) stop() {
	close(p.ch)
	<-p.done
}
