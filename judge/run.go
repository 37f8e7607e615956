package judge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tether-dev/tether/codec"
	"github.com/tether-dev/tether/dual"
	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sandbox"
)

// ErrCancelled: the run was stopped by its context. Run then still returns
// a SystemError Result.
var ErrCancelled = errors.New("judge: run cancelled")

// ErrNoRunner: Run was called without Options.Runner.
var ErrNoRunner = errors.New("judge: Options.Runner is required (sandbox.Select(\"auto\") picks a sandbox for this machine; sandbox.NewPlain() runs without isolation)")

// Run judges one submission: it starts the evaluator and the solution,
// relays frames between them until the evaluator's result (or a limit, or
// a failure), stops both and decides the verdict. Every verdict, including
// SystemError, is a Result with a nil error; the error is non-nil only when
// ctx ended the run (it wraps ErrCancelled and ctx.Err()), or when nothing
// ran because opts has no Runner (ErrNoRunner, with a nil Result). On return both
// sides are killed and reaped, their pipes closed and no goroutine of the
// run is left. Run is safe for concurrent use with different arguments.
func Run(ctx context.Context, p *Problem, sub *Submission, opts *Options) (*Result, error) {
	if opts == nil || opts.Runner == nil {
		return nil, ErrNoRunner
	}
	r := &run{opts: opts.withDefaults(), problem: p, sub: sub, stdout: newTailBuffer(MaxStreamOutput)}
	return r.execute(ctx)
}

// run is the state of one Run. mu guards the fields below it; the relay's
// events, the phase timers and the run goroutine all go through it.
//
// Lock order: the relay's locks (Relay.tellMu, then Relay.mu) before
// obsMu and mu: the relay tells its events under tellMu and calls
// FirstEvaluatorLine under Relay.mu, and both take mu or obsMu; the run
// never calls the relay (InFlight, Report) while it holds mu or obsMu.
type run struct {
	opts    Options
	problem *Problem
	sub     *Submission
	cancel  context.CancelFunc // ends the relay

	build          *lang.Build // what the solution runs; removed at the end
	language       string      // the submission's language id, "" for a solution.command
	compile        *lang.Stats // the compile step, nil when there was none
	compilerOutput string      // the compiler's messages of a CompileError

	pythonPath  string
	nonce       string // signs the evaluator's result marker (codec.ResultNonceEnv)
	sdkDir      string // the run's own copy of the Python SDK, "" if none
	evaluator   *sandboxProcess
	solSpec     sandbox.Spec
	lm          lmRun // the run's LM handler, if any
	phase1      *time.Timer
	phase2      *time.Timer
	startedWall time.Time

	mu          sync.Mutex
	outcome     Outcome
	firstOutput time.Time
	ended       bool
	endedAt     time.Time
	stdout      *tailBuffer
	logs        logKeeper
	solution    *sandboxProcess // the live solution; replaced on restart
	lastSol     *sandboxProcess // the last solution started; kept when a restart fails
	solUsage    []sandbox.Usage // of the solutions already stopped
	counts      callCounts
	lmUsage     json.RawMessage // set by stopLM
	restarts    int             // solutions started after the first

	obsMu sync.Mutex // one Observe call at a time (see emit); guards obsEv
	obsEv Event
	relay atomic.Pointer[dual.Relay] // once it is made (see emitNow)
}

type callCounts struct {
	calls, timeouts, capTimeouts, restarts, logsDropped int
	dropped                                             map[string]int
}

// failSetup records a failure of the problem's setup (a command that
// cannot start, a folder the sandbox cannot read): SystemError, but not the
// judge's own fault, so not labelled an internal error.
func (r *run) failSetup(err error) {
	r.mu.Lock()
	if r.outcome.Failure == "" {
		r.outcome.Failure = err.Error()
	}
	r.mu.Unlock()
}

// fail records an internal failure (a panic recovered in a goroutine of the
// run) and ends the relay.
func (r *run) fail(p any) {
	r.mu.Lock()
	if r.outcome.Failure == "" {
		r.outcome.Failure = fmt.Sprintf("judge internal error: %v", p)
	}
	r.mu.Unlock()
	if r.cancel != nil {
		r.cancel()
	}
}

// guard runs f and turns a panic into fail; used around the run's own
// handling of the relay's events and calls.
func (r *run) guard(f func()) {
	defer recoverTo(r.fail)
	f()
}

// execute performs the run, stops what it started, and then decides the
// verdict, in one place, from what the steps recorded in r.
func (r *run) execute(ctx context.Context) (*Result, error) {
	relayCtx, cancel := context.WithCancel(ctx)
	r.cancel = cancel
	defer cancel()
	r.perform(ctx, relayCtx)
	r.cleanUp()
	res := r.result()
	if r.wants(EventVerdict) {
		r.emit(func(ev *Event) { ev.Kind, ev.At, ev.Result = EventVerdict, time.Now(), res })
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return res, fmt.Errorf("%w: %w", ErrCancelled, ctxErr)
	}
	return res, nil
}

// cleanUp stops both sides and the LM handler and removes the run's files.
func (r *run) cleanUp() {
	r.stopAll()
	r.stopLM()
	if r.sdkDir != "" {
		os.RemoveAll(r.sdkDir)
	}
	r.build.Close()
}

// perform runs the steps of a run (check, build, start both sides, relay)
// until one fails or the relay ends; each records in r what the verdict
// needs (a failure, the outcome). A panic is the judge's internal error.
// relayCtx ends the relay early (a time limit, a failure).
func (r *run) perform(ctx, relayCtx context.Context) {
	defer func() {
		if p := recover(); p != nil {
			r.fail(p)
		}
	}()
	if err := CheckProblemAccess(r.problem, r.opts.Runner); err != nil {
		r.failSetup(err)
		return
	}
	r.pythonPath = r.opts.PythonPath
	if r.pythonPath == "" {
		dir, err := writePythonSDKDir()
		if err != nil {
			r.fail(err.Error())
			return
		}
		r.sdkDir = dir // removed after both sides have stopped
		r.pythonPath = dir
	}
	if !r.buildSolution(ctx) {
		return
	}
	r.solSpec = solutionSpec(r.problem, r.build, r.pythonPath, r.opts.Env)
	r.solSpec.CPUs = r.opts.SolutionCPUs
	r.solSpec.Limits.CPUMillicores = r.opts.CPUMillicores
	if err := r.startLM(ctx); err != nil {
		r.fail(err.Error())
		return
	}
	r.startedWall = time.Now()
	var err error
	if r.nonce, err = newResultNonce(); err != nil {
		r.fail(err.Error())
		return
	}
	evSpec := evaluatorSpec(r.problem, r.opts.EvaluatorWorkspace, r.pythonPath, r.opts.Env)
	evSpec.Env = setEnv(evSpec.Env, codec.ResultNonceEnv, r.nonce)
	evSpec.CPUs = r.opts.EvaluatorCPUs
	evSpec.Limits.CPUMillicores = r.opts.CPUMillicores
	evSpec.NetworkAllow = r.opts.EvaluatorNetworkAllow
	ev, startErr := startSide(ctx, r.opts.Runner, r.withLM(evSpec), newTailBuffer(MaxStreamOutput), r.fail, r.watchSide(dual.Evaluator, 0))
	if startErr != nil {
		r.failSetup(fmt.Errorf("cannot start the evaluator %q: %w", r.problem.Runtime.Evaluator.Command[0], startErr))
		return
	}
	r.evaluator = ev
	sol, startErr := startSide(ctx, r.opts.Runner, r.solSpec, newTailBuffer(MaxStderrTail), r.fail, r.watchSide(dual.Solution, 0))
	if startErr != nil {
		r.failSetup(fmt.Errorf("cannot start the solution %q: %w", r.solSpec.Args[0], startErr))
		return
	}
	r.mu.Lock()
	r.solution, r.lastSol = sol, sol
	r.mu.Unlock()

	r.mu.Lock()
	r.phase1 = time.AfterFunc(r.opts.StartTimeout, r.startTimedOut)
	r.mu.Unlock()
	relay := dual.NewRelay(endpointOf(ev), endpointOf(sol), r.relayConfig())
	r.relay.Store(relay)
	sum, relayErr := relay.Run(relayCtx)
	r.endPhases()
	discarded := r.checkPlainResult(&sum)
	r.absorb(ctx, sum, relayErr)
	if discarded != "" {
		r.mu.Lock()
		r.outcome.ResultDiscarded = discarded
		r.mu.Unlock()
	}
}

// newResultNonce is the run's secret for the evaluator's signed result
// marker (codec.SignedResultMarker): 128 random bits.
func newResultNonce() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("cannot make the run's result nonce: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// setEnv returns env with name set to value, every earlier entry for name
// removed (a program may read the first or the last one).
func setEnv(env []string, name, value string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}

// plainResultExitWait is how long checkPlainResult waits for the
// evaluator's exit to be reported. The evaluator has closed its stdout, so
// it is ending; but a sandbox can report the exit late on a loaded machine
// (the rootless one learns of it through its monitor process), and a good
// run must not become SystemError for that. Only an evaluator that hangs
// after its result waits this long, and it is SystemError either way.
const plainResultExitWait = 5 * time.Second

// checkPlainResult keeps a result that followed a plain ---RESULT--- only
// if the evaluator exited with status 0 (it has closed its stdout): an
// evaluator that crashed, or was killed, after printing text a solution
// chose must not have that text taken as its verdict. It returns why it
// dropped the result, "" if it kept it.
func (r *run) checkPlainResult(sum *dual.Summary) string {
	if sum.Result == nil || !sum.ResultPlain {
		return ""
	}
	waitUpTo(r.evaluator.done, max(r.opts.StopGrace, plainResultExitWait))
	ended := "did not exit"
	select {
	case <-r.evaluator.done:
		if e := r.evaluator.exit(); e.ExitCode != nil && *e.ExitCode == 0 {
			return ""
		}
		ended = "ended with " + describeExit(r.evaluator.usage, r.evaluator.waitErr)
	default:
	}
	sum.Result = nil
	return "evaluator result discarded: the evaluator " + ended + " after printing " + codec.ResultMarker +
		" (a result printed by hand counts only when the evaluator exits with status 0 right after it; the SDKs' result calls always count)"
}

func endpointOf(s *sandboxProcess) dual.Endpoint {
	in, out := s.endpoint()
	return dual.Endpoint{Stdin: in, Stdout: out, Exited: s.exited}
}

func (r *run) relayConfig() dual.RelayConfig {
	sc := r.problem.Runtime.Solution
	policy := dual.Restart
	if sc.OnCallTimeout == OnCallTimeoutContinue {
		policy = dual.Continue
	}
	cfg := dual.RelayConfig{
		Engine: dual.Config{
			ResultNonce:   r.nonce,
			CallTimeout:   time.Duration(sc.CallTimeoutMs) * time.Millisecond,
			OnCallTimeout: policy,
			ReadyTimeout:  time.Duration(sc.ReadyTimeoutMs) * time.Millisecond,
		},
		Restart:            r.restartSolution,
		Observer:           newRelayObserver(r),
		FirstEvaluatorLine: func(at time.Time) { r.guard(func() { r.evaluatorStarted(at) }) },
	}
	return cfg
}

// restartSolution is the relay's RestartFunc: the old solution is killed
// at once (it overran a call), a fresh one started from the same spec.
func (r *run) restartSolution(ctx context.Context) (dual.Endpoint, error) {
	r.mu.Lock()
	old := r.solution
	r.solution = nil
	r.mu.Unlock()
	if old != nil {
		old.stop(0)
		r.mu.Lock()
		r.solUsage = append(r.solUsage, r.solutionUsage(old))
		r.mu.Unlock()
	}
	spec, err := r.restartSpec()
	if err != nil {
		return dual.Endpoint{}, err
	}
	r.mu.Lock()
	n := r.restarts + 1 // the relay restarts one solution at a time
	r.mu.Unlock()
	s, err := startSide(ctx, r.opts.Runner, spec, newTailBuffer(MaxStderrTail), r.fail, r.watchSide(dual.Solution, n))
	if err != nil {
		return dual.Endpoint{}, fmt.Errorf("start solution %q: %w", r.solSpec.Args[0], err)
	}
	r.mu.Lock()
	r.solution, r.lastSol = s, s
	r.restarts = n
	r.mu.Unlock()
	if r.wants(EventRestart) {
		r.emitNow(func(ev *Event) { ev.Kind, ev.Side, ev.Restarts = EventRestart, dual.Solution, n })
	}
	return endpointOf(s), nil
}

// absorb turns how the relay ended into the Outcome.
func (r *run) absorb(ctx context.Context, sum dual.Summary, relayErr error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := &r.outcome
	o.CallTimeouts = int(sum.Stats.CallTimeouts)
	if sum.Result != nil {
		pl, err := ParsePayload(sum.Result)
		if err != nil {
			o.PayloadErr = err
		} else {
			o.Payload = &pl
		}
	}
	var restartErr *dual.RestartError
	switch {
	case relayErr == nil:
	case errors.Is(relayErr, dual.ErrSolutionNotReady):
		o.SolutionNotReady = true
	case errors.Is(relayErr, errSolutionCPUSpent):
		o.SolutionCPUExceeded = true
	case errors.As(relayErr, &restartErr):
		if o.Failure == "" {
			o.Failure = restartErr.Error()
		}
	case errors.Is(relayErr, context.Canceled) || errors.Is(relayErr, context.DeadlineExceeded):
		if ctx.Err() != nil && o.Failure == "" {
			o.Failure = "judge cancelled: " + ctx.Err().Error()
		}
	default:
		if o.Failure == "" {
			o.Failure = relayErr.Error()
		}
	}
	if sum.FirstOutput.IsZero() && r.firstOutput.IsZero() && sum.EvaluatorGone != "" && !o.EvaluatorStartTimeout {
		o.EvaluatorSilentExit = true
	}
	r.counts = callCounts{calls: int(sum.Stats.Calls), timeouts: int(sum.Stats.CallTimeouts), capTimeouts: int(sum.Stats.CapabilityTimeouts),
		restarts: sum.Restarts, logsDropped: int(sum.Stats.LogDroppedFrames) + r.logs.dropped, dropped: droppedByReason(sum.Stats)}
}

// stopAll stops both sides (in parallel, each: stdin closed, grace, kill)
// and records the solution's usage.
func (r *run) stopAll() {
	r.mu.Lock()
	sol, last := r.solution, r.lastSol
	r.mu.Unlock()
	if last == sol { // else a failed restart stopped it; stop is idempotent
		last = nil
	}
	var wg sync.WaitGroup
	for _, s := range []*sandboxProcess{r.evaluator, sol, last} {
		if s == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer recoverTo(r.fail)
			s.stop(r.opts.StopGrace)
		}()
	}
	wg.Wait()
	if sol != nil {
		r.mu.Lock()
		r.solUsage = append(r.solUsage, r.solutionUsage(sol))
		r.mu.Unlock()
	}
}

// droppedByReason names the counts of what the relay dropped, nil when it
// dropped nothing. Log frames over budget are left out: Logs.Dropped counts
// them.
func droppedByReason(st dual.Stats) map[string]int {
	var m map[string]int
	for reason, n := range st.Dropped {
		if n == 0 || dual.DropReason(reason) == dual.DropLogBudget {
			continue
		}
		if m == nil {
			m = map[string]int{}
		}
		m[dual.DropReason(reason).String()] = int(n)
	}
	return m
}
