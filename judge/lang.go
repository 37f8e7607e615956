package judge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/version"
	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sandbox"
)

// buildSolution asks package lang for the submission's language, checks it
// against the problem's runtime_config.solution.languages and builds it
// (compiling in a sandbox of its own, before the evaluator starts, so the
// compile is on no clock of the run). A submission at fault ends the run
// as CompileError (false); so does a failure of the judge (SystemError).
// A problem with its own solution.command runs that instead: no language.
func (r *run) buildSolution(ctx context.Context) bool {
	if r.problem.Runtime.Solution.Command != nil {
		r.build = &lang.Build{Files: legacySolutionFiles(r.sub), Run: r.problem.Runtime.Solution.Command}
		return true
	}
	table := r.opts.Languages
	if table == nil {
		table = lang.Builtin()
	}
	l, err := table.Resolve(r.sub.Language, r.sub.Path)
	if err == nil {
		r.language = l.ID
		err = table.Allowed(l, r.problem.Runtime.Solution.Languages)
	}
	if err != nil {
		ce := &lang.CompileError{Reason: err.Error()}
		r.observeCompile(r.language, lang.Stats{}, ce, 0)
		r.compileFailed(ce)
		return false
	}
	sc := r.problem.Runtime.Solution
	b := &lang.Builder{Runner: r.opts.Runner, Cache: r.opts.BuildCache, Env: baseEnv("", r.opts.Env), Host: version.Version}
	began := time.Now()
	bd, err := b.Build(ctx, lang.Request{Language: l, Source: r.sub.Code, FileName: r.sub.Path, Limits: l.Effective(sc.Compile),
		MemoryMB: sc.MemoryLimitMB, CPUs: r.opts.SolutionCPUs, Functions: r.problem.Functions})
	var ce *lang.CompileError
	switch {
	case errors.As(err, &ce):
		r.observeCompile(l.ID, ce.Stats, ce, time.Since(began))
		r.compileFailed(ce)
		return false
	case err != nil:
		if ctx.Err() != nil {
			r.failSetup(fmt.Errorf("judge cancelled: %w", ctx.Err()))
		} else {
			r.failSetup(fmt.Errorf("compiling the %s solution: %w", l.ID, err))
		}
		return false
	}
	r.build = bd
	if l.Compiled() {
		stats := bd.Stats
		r.compile = &stats
		r.observeCompile(l.ID, stats, nil, time.Since(began))
	}
	return true
}

func (r *run) compileFailed(ce *lang.CompileError) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ce.Stats != (lang.Stats{}) {
		stats := ce.Stats
		r.compile = &stats
	}
	r.outcome.CompileError = ce.Reason
	r.compilerOutput = ce.Message
}

// legacySolutionFiles places the submission as main.py for a problem's
// own solution.command (TETHER_SOLUTION_ENTRY names it).
func legacySolutionFiles(sub *Submission) []sandbox.File {
	return []sandbox.File{{Name: SolutionFileName, Data: sub.Code}}
}

// notReadyWhy says why a submission's own program (not a problem's
// solution.command) did not become ready: how it ended and the last lines
// of its stderr. Call after both sides have stopped.
func (r *run) notReadyWhy() (why string, timedOut bool) {
	if r.problem.Runtime.Solution.Command != nil || r.lastSol == nil {
		return "", false
	}
	s := r.lastSol
	if s.killed.Load() && s.usage.Signal != 0 && !s.usage.MemoryExceeded && !s.usage.CPUExceeded {
		return fmt.Sprintf("the solution did not become ready within runtime_config.solution.ready_timeout_ms (%d ms)",
			r.problem.Runtime.Solution.ReadyTimeoutMs), true
	}
	var b strings.Builder
	b.WriteString("the solution ended before it was ready: ")
	e := s.exit()
	switch {
	case e.Signal != "":
		b.WriteString("killed by " + e.Signal)
	case e.ExitCode != nil:
		fmt.Fprintf(&b, "exit status %d", *e.ExitCode)
	default:
		b.WriteString(e.Error)
	}
	if tail := lastLinesOf(stderrTail(s.stderrText()), 10); tail != "" {
		b.WriteString("; its stderr ends:\n" + tail)
	}
	return b.String(), false
}

func lastLinesOf(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// solutionUsage is what a stopped solution used, at its memory limit also
// when its runtime enforced that limit itself and said so on stderr
// (lang.Language.OutOfMemory: the JVM's heap).
func (r *run) solutionUsage(s *sandboxProcess) sandbox.Usage {
	u := s.usage
	if r.build != nil && r.build.OutOfMemory != "" && strings.Contains(s.stderrText(), r.build.OutOfMemory) {
		u.MemoryExceeded = true
	}
	return u
}
