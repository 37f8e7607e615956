package judge

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tether-dev/tether/sandbox"
)

// sandboxProcess is one side's started sandbox process with its owned goroutines: a waiter
// that reaps it and reports how it ended, and a stderr reader that either
// collects (evaluator) or discards (solution) so the child never blocks on
// a full pipe. stop and close must be called from the run's goroutine.
type sandboxProcess struct {
	proc   sandbox.Process
	exited chan string // receives the exit description once, then is closed

	usage   sandbox.Usage
	waitErr error
	done    chan struct{} // closed after Wait returned; usage is set then

	stderrMu   sync.Mutex // guards stderr
	stderr     *tailBuffer
	stderrDone chan struct{}

	stopOnce sync.Once
	killed   atomic.Bool // the judge sent Kill (end of run, restart, closed stdout)
}

// sideWatch is told that a side's process started and that it ended; nil
// fields are skipped.
type sideWatch struct {
	started func()
	exited  func(*sandboxProcess)
}

// startSide starts spec. collect == nil discards stderr. watch.started is
// called once the process runs, before anything can report its exit;
// watch.exited on the waiter goroutine once the process has ended, before
// stop can return.

func startSide(ctx context.Context, r sandbox.Runner, spec sandbox.Spec, collect *tailBuffer, fail func(any), watch sideWatch) (*sandboxProcess, error) {
	proc, err := r.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	if watch.started != nil {
		watch.started()
	}
	exited := watch.exited
	s := &sandboxProcess{proc: proc, exited: make(chan string, 1), done: make(chan struct{}),
		stderr: collect, stderrDone: make(chan struct{})}
	go func() {
		defer close(s.done)
		defer close(s.exited)
		defer recoverTo(fail)
		s.usage, s.waitErr = proc.Wait()
		if exited != nil {
			exited(s)
		}
		s.exited <- describeExit(s.usage, s.waitErr)
	}()
	go func() {
		defer close(s.stderrDone)
		defer recoverTo(fail)
		s.drainStderr()
	}()
	return s, nil
}

func (s *sandboxProcess) drainStderr() {
	buf := make([]byte, 32<<10)
	for {
		n, err := s.proc.Stderr().Read(buf)
		if n > 0 && s.stderr != nil {
			s.stderrMu.Lock()
			s.stderr.Write(buf[:n])
			s.stderrMu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// stderrText is the collected stderr tail; call after close.
func (s *sandboxProcess) stderrText() string {
	if s.stderr == nil {
		return ""
	}
	s.stderrMu.Lock()
	defer s.stderrMu.Unlock()
	return s.stderr.String()
}

// stdout adapts the process's stdout to the relay's ReadCloser.
func (s *sandboxProcess) endpoint() (io.WriteCloser, io.ReadCloser) {
	if rc, ok := s.proc.Stdout().(io.ReadCloser); ok {
		return s.proc.Stdin(), rc
	}
	return s.proc.Stdin(), killCloser{s.proc.Stdout(), s}
}

// killCloser stops a reader that has no Close by killing its writer.
type killCloser struct {
	io.Reader
	side *sandboxProcess
}

func (k killCloser) Close() error { return k.side.kill() }

// kill kills the whole sandbox and remembers that the judge did it, unless
// the process was already reaped (Kill then only reaches what it left).
func (s *sandboxProcess) kill() error {
	select {
	case <-s.done:
	default:
		s.killed.Store(true)
	}
	return s.proc.Kill()
}

// stop ends the process in order: its stdin is closed (EOF asks it to
// exit), it gets grace to do so, then the whole sandbox is killed. Stderr is
// drained until EOF (or until Close cuts the pipe) before stop returns, and
// everything the side owns is released.
func (s *sandboxProcess) stop(grace time.Duration) {
	s.stopOnce.Do(func() { s.stopNow(grace) })
}

func (s *sandboxProcess) stopNow(grace time.Duration) {
	s.proc.Stdin().Close()
	waitUpTo(s.done, grace)
	s.kill()
	<-s.done
	// Killing the group ends every writer of stderr, but a process that left
	// the group may hold it open: Close cuts the pipe after a short wait.
	waitUpTo(s.stderrDone, grace)
	s.proc.Close()
	<-s.stderrDone
}

func waitUpTo(ch <-chan struct{}, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	}
}

func describeExit(u sandbox.Usage, err error) string {
	switch {
	case err != nil:
		return err.Error()
	case u.Signal != 0:
		return "signal: " + syscall.Signal(u.Signal).String()
	default:
		return fmt.Sprintf("exit status %d", u.ExitCode)
	}
}

// exit is how the side's process ended; call after done is closed.
func (s *sandboxProcess) exit() *ProcessExit {
	u, e := s.usage, &ProcessExit{}
	switch {
	case s.waitErr != nil:
		e.Error = s.waitErr.Error()
	case u.Signal != 0:
		e.Signal = signalName(u.Signal)
		// A Kill that raced with the process's own exit did not end it: only
		// a SIGKILL after the judge's Kill counts, or a limit the sandbox
		// enforced with a signal.
		e.KilledByJudge = (s.killed.Load() && u.Signal == int(syscall.SIGKILL)) ||
			u.CPUExceeded || u.MemoryExceeded
	default:
		code := u.ExitCode
		e.ExitCode = &code
	}
	return e
}

func recoverTo(fail func(any)) {
	if p := recover(); p != nil {
		fail(p)
	}
}
