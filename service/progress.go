package service

import (
	"sync"
	"time"

	"github.com/tether-dev/tether/judge"
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

// progressObserver turns a run's events into "running" notifications: one
// after each completed or timed-out call, one for each evaluator output
// line. The judge calls it one event at a time, so calls needs no lock.
func progressObserver(p *pump, start time.Time) judge.Observer {
	var calls int64
	return judge.ObserverFunc(func(ev *judge.Event) {
		switch ev.Kind {
		case judge.EventProgress:
			calls = ev.Stats.Calls
			p.offer(progressValue{Phase: "running", Calls: calls, ElapsedMs: time.Since(start).Milliseconds()})
		case judge.EventOutput:
			p.offer(progressValue{Phase: "running", Calls: calls, EvaluatorLine: string(ev.Text),
				ElapsedMs: time.Since(start).Milliseconds()})
		}
	})
}

// progressQueue bounds the notifications waiting for a slow client.
const progressQueue = 256

// pump sends progress from its own goroutine, so the judge's callbacks,
// which must return quickly, never wait on the client. offer may be called
// from one goroutine at a time (the judge tells its Observer one event at
// a time) and never after stop; stop sends what is queued and waits for the
// goroutine.
//
// Values wait in a queue of at most progressQueue. When a slow client has
// let it fill, a new value replaces the one at its tail: intermediate
// states are coalesced (and counted in Dropped), but the latest state
// offered, "finished" above all, is never lost, and values are sent in the
// order they were offered.
type pump struct {
	send func(progressValue)
	wake chan struct{} // a token when the queue grew or the pump stopped
	done chan struct{}

	mu      sync.Mutex // protects the fields below
	queue   []progressValue
	dropped int64
	closed  bool
}

func startPump(send func(progressValue)) *pump {
	p := &pump{send: send, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go p.loop()
	return p
}

func (p *pump) loop() {
	defer close(p.done)
	var batch []progressValue
	for {
		p.mu.Lock()
		batch, p.queue = p.queue, batch[:0]
		dropped, closed := p.dropped, p.closed
		p.mu.Unlock()
		for _, v := range batch {
			v.Dropped = dropped
			p.send(v)
		}
		if closed {
			return // nothing can be offered after stop
		}
		<-p.wake
	}
}

func (p *pump) offer(v progressValue) {
	p.mu.Lock()
	if len(p.queue) < progressQueue {
		p.queue = append(p.queue, v)
	} else {
		p.queue[len(p.queue)-1] = v
		p.dropped++
	}
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *pump) stop() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
	<-p.done
}
