//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/criyle/go-sandbox/pkg/forkexec"
)

// On cgroup v1 the one slow step of a start is the move of the start thread
// into the sandbox's new cgroup: it waits for an RCU grace period, ~10 ms
// here whenever the machine was quiet for a moment, which is how a judge
// starts its sandboxes (see cgroupEntry). A warm pool does that step ahead
// of time: it keeps up to n start threads prepared, each with a fresh empty
// cgroup of its own (no limits yet), already inside it, a new PID
// namespace for its children and a new network namespace. Start takes one,
// sets the limits, sets up outbound access for a Spec with Network, and
// starts both children, exactly as a cold start does after its own
// preparation; the thread then ends. Nothing is reused: each prepared
// thread and cgroup serves one sandbox, and no process exists in it before
// Start. A start that finds no prepared thread prepares its own (a cold
// start).
//
// The pool fills when the runner is made, and refills when a sandbox closes
// and after a cold start. Close discards what is prepared. A
// judge killed while threads are prepared leaves their empty cgroups, named
// like every sandbox cgroup of that judge: the next runner removes them
// (removeStale).

// warmPool is safe for concurrent use. close is safe twice; take must not
// be called after it.
type warmPool struct {
	layout *cgroupLayout
	size   int
	stop   chan struct{} // closed by close: parked threads discard themselves
	wg     sync.WaitGroup

	mu      sync.Mutex // protects the fields below
	ready   []*warmThread
	pending int // threads being prepared
	closed  bool
}

// warmThread is one prepared start thread, parked on its goroutine until
// a job or the pool's stop.
type warmThread struct {
	cg    *sandboxCgroup
	entry *cgroupEntry
	jobs  chan warmJob // unbuffered: a job is taken by the parked goroutine
}

type warmJob struct {
	placeholder, program *forkexec.Runner
	net                  netPlan
	memory               int64
	pids, millicores     int
	p                    *linuxProcess
	done                 chan error
}

func newWarmPool(layout *cgroupLayout, size int) *warmPool {
	return &warmPool{layout: layout, size: size, stop: make(chan struct{})}
}

// take returns a prepared thread, or nil when none is ready.
func (w *warmPool) take() *warmThread {
	w.mu.Lock()
	defer w.mu.Unlock()
	var t *warmThread
	if n := len(w.ready); n > 0 {
		t, w.ready = w.ready[n-1], w.ready[:n-1]
	}
	return t
}

// fill starts preparing threads up to the pool's size. It is called when
// a sandbox closes and after a cold start, not during a start: the
// preparation's move into the new cgroup waits for a grace period holding
// the kernel's cgroup mutex, which every cgroup mkdir and rmdir needs too.
func (w *warmPool) fill() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fillLocked()
}

func (w *warmPool) fillLocked() {
	for !w.closed && len(w.ready)+w.pending < w.size {
		w.pending++
		w.wg.Add(1)
		go w.prepare()
	}
}

// prepare makes one thread ready, parks it, and serves one job or discards
// it at close. Its goroutine ends locked, so the thread is discarded.
func (w *warmPool) prepare() {
	defer w.wg.Done()
	runtime.LockOSThread() // never unlocked: the thread's namespaces change
	t, err := w.prepareThread()
	w.mu.Lock()
	w.pending--
	if err != nil || w.closed {
		// A failed preparation leaves the next Start to a cold start (whose
		// error, if the cause persists, the caller then sees).
		w.mu.Unlock()
		if t != nil {
			t.discard()
		}
		return
	}
	w.ready = append(w.ready, t)
	w.mu.Unlock()
	select {
	case job := <-t.jobs:
		job.done <- t.serve(job)
	case <-w.stop:
		w.mu.Lock()
		i := slices.Index(w.ready, t)
		if i >= 0 {
			w.ready = slices.Delete(w.ready, i, i+1)
		}
		w.mu.Unlock()
		if i >= 0 {
			t.discard()
			return
		}
		// Taken by a Start racing with close: serve it.
		job := <-t.jobs
		job.done <- t.serve(job)
	}
}

func (w *warmPool) prepareThread() (*warmThread, error) {
	cg, err := w.layout.makeCgroup(fmt.Sprintf("%s-%d", ownerTag, sandboxSeq.Add(1)))
	if err != nil {
		return nil, err
	}
	entry, err := prepareStartThread(cg)
	if err != nil {
		cg.destroy()
		return nil, err
	}
	return &warmThread{cg: cg, entry: entry, jobs: make(chan warmJob)}, nil
}

// discard runs on the prepared thread: out of the cgroup, then remove it.
func (t *warmThread) discard() {
	t.entry.moveOut()
	t.cg.destroy()
}

// serve runs on the prepared thread, which then ends inside the cgroup
// (see cgroupEntry.done): a move out would wait for a grace period again.
func (t *warmThread) serve(job warmJob) error {
	err := t.cg.setLimits(job.memory, job.pids, job.millicores, job.p.cpus)
	if err == nil {
		err = startChildren(t.entry, job.placeholder, job.program, job.net, job.p)
	}
	return errors.Join(err, t.entry.done())
}

// start hands the job to the prepared thread and waits for its result.
// job.p.cg must already be t.cg (its owner removes it).
func (t *warmThread) start(job warmJob) error {
	job.done = make(chan error, 1)
	t.jobs <- job
	return <-job.done
}

// close discards every prepared thread and waits for all the pool's
// goroutines, including those still preparing.
func (w *warmPool) close() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.closed = true
	w.mu.Unlock()
	close(w.stop)
	w.wg.Wait()
}
