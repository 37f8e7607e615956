package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/trace"
)

// judgeOptions are tether judge's flags.
type judgeOptions struct {
	JSON         bool
	SubmissionID string
	Trace        string // --trace FILE
	TraceHTML    string // --trace-html FILE
	TraceMax     string // the --trace file's cap, a size such as 64MiB
	Language     string // the solution's language, "" to tell it by the file's extension
	judgingOptions
}

func newJudgeCmd(m machine) *cobra.Command {
	o := &judgeOptions{}
	cmd := &cobra.Command{
		Use:   "judge PROBLEM_DIR SOLUTION_FILE",
		Short: "Judge a solution file against a problem folder",
		Long: `judge runs the problem's evaluator and the solution, each in its own sandbox,
relays frames between them and prints the verdict. The exit status is 0 for
every verdict; it is non-zero only for bad usage or when the judge itself fails.`,
		Args: exactArgs(2, "judge takes PROBLEM_DIR and SOLUTION_FILE", "tether judge examples/aplusb examples/aplusb/solution.py"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runJudge(cmd, m, o, args[0], args[1])
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.JSON, "json", false, "print the full result object as JSON")
	f.StringVar(&o.SubmissionID, "submission-id", "", "submission id copied into the result")
	f.StringVar(&o.Trace, "trace", "", "write the run's trace (every line, call, restart, exit, LM request and the verdict; docs/trace.md) to `FILE`")
	f.StringVar(&o.TraceHTML, "trace-html", "", "write the run as one self-contained HTML page (timeline, calls, statistics; as tether trace view makes) to `FILE`")
	f.StringVar(&o.TraceMax, "trace-max", "64MiB", "the most a --trace file may hold; past it the trace only counts what it leaves out (e.g. 1MiB, 500KiB)")
	o.judgingOptions.addFlags(f)
	addLanguageFlag(f, &o.Language)
	return cmd
}

func runJudge(cmd *cobra.Command, m machine, o *judgeOptions, problemDir, solutionFile string) (retErr error) {
	id, tracePath := o.SubmissionID, o.Trace
	problem, err := judge.LoadProblem(problemDir, o.AllowCommands)
	if err != nil {
		return explainLoadError(err)
	}
	warnUnknownFields(cmd.ErrOrStderr(), problem)
	sub, err := judge.LoadSubmission(solutionFile)
	if err != nil {
		return fmt.Errorf("%w (pass a readable solution file)", err)
	}
	allow, err := networkAllow(o.NetworkAllow, "")
	if err != nil {
		return err
	}
	languages, cache, err := o.Build.languages()
	if err != nil {
		return err
	}
	if problem.Runtime.Solution.Command == nil { // else the problem's own command runs it
		l, err := submissionLanguage(o.Language, languages, solutionFile)
		if err != nil {
			return err
		}
		sub.Language = l.ID
	}
	runner, lmStarter, err := m.judgeRunnerAndLM(cmd.ErrOrStderr(), o.Sandbox, &o.LM, problem)
	if err != nil {
		return err
	}
	defer runner.Close()
	opts := &judge.Options{Runner: runner, SubmissionID: id, LM: lmStarter, EvaluatorNetworkAllow: allow,
		Languages: languages, BuildCache: cache}
	var tw judge.Observer
	htmlPath := o.TraceHTML
	if htmlPath != "" && tracePath == "" { // the page is made from a trace: keep one for the run only
		f, err := os.CreateTemp("", "tether-trace-*.jsonl")
		if err != nil {
			return fmt.Errorf("--trace-html: a temporary trace: %w", err)
		}
		f.Close()
		tracePath = f.Name()
		defer os.Remove(tracePath)
	}
	finishTrace := func() error { return nil }
	if tracePath != "" {
		w, closeTrace, err := openTrace(tracePath, o.TraceMax, trace.HeaderFor(problem, sub, id, runner.Kind()))
		if err != nil {
			return err
		}
		finishTrace = sync.OnceValue(closeTrace)
		defer func() {
			if cerr := finishTrace(); cerr != nil && retErr == nil {
				retErr = cerr
			}
		}()
		tw = w
	}
	stopLive, live := startLiveLine(cmd.ErrOrStderr())
	opts.Observer = judge.Observers(live, tw)

	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := judge.Run(ctx, problem, sub, opts)
	stopLive()
	if err != nil {
		return err
	}
	if htmlPath != "" {
		if err := finishTrace(); err != nil {
			return err
		}
		if err := writeTraceHTML(tracePath, htmlPath); err != nil {
			return fmt.Errorf("--trace-html: %w", err)
		}
	}
	return report(cmd.OutOrStdout(), o.JSON, res, printSummary)
}

func explainLoadError(err error) error {
	switch {
	case errors.Is(err, judge.ErrNoProblemJSON):
		return fmt.Errorf("%w (PROBLEM_DIR must be a folder holding problem.json)", err)
	case errors.Is(err, judge.ErrCommandNotAllowed):
		return fmt.Errorf("%w (change runtime_config.evaluator.command, or allow its first word with --allow-command)", err)
	case errors.Is(err, judge.ErrNoEvaluator):
		return fmt.Errorf("%w (add evaluate.py or set runtime_config.evaluator.command)", err)
	}
	return err
}

// formatScore shows a result's score (hundredths of a point) in the
// problem's own points, as its evaluator gave them: 3750 is "37.50". The
// judge does not know a problem's full score (a Neuro OJ problem may be
// worth 10 points, its evaluator answering accept(10)), so none is shown.
func formatScore(score int64) string {
	return fmt.Sprintf("%.2f", float64(score)/100)
}

func printSummary(w io.Writer, r *judge.Result) {
	fmt.Fprintf(w, "verdict:  %s\n", r.Status)
	fmt.Fprintf(w, "score:    %s\n", formatScore(r.Score))
	if note := judge.ScoreNote(r.Score); note != "" {
		fmt.Fprintf(w, "          ! %s\n", note) // kept as Neuro OJ's judge keeps it, not clamped
	}
	fmt.Fprintf(w, "time:     %d ms (solution cpu %d ms)\n", r.TimeMs, r.CPUMs)
	fmt.Fprintf(w, "memory:   %d KiB\n", r.MemoryKB)
	if r.Language != "" {
		fmt.Fprintf(w, "language: %s\n", r.Language)
	}
	if c := r.Compile; c != nil {
		if c.Cached {
			fmt.Fprintf(w, "compile:  cached build\n")
		} else {
			fmt.Fprintf(w, "compile:  %d ms, %d KiB (not on the solution's clock)\n", c.TimeMs, c.MemoryKB)
		}
	}
	fmt.Fprintf(w, "calls:    %d (timeouts %d, restarts %d", r.Calls.Count, r.Calls.Timeouts, r.Calls.Restarts)
	if r.Calls.CapabilityTimeouts > 0 {
		fmt.Fprintf(w, ", capability timeouts %d", r.Calls.CapabilityTimeouts)
	}
	fmt.Fprintln(w, ")")
	if len(r.Dropped) > 0 {
		total, parts := 0, make([]string, 0, len(r.Dropped))
		for _, reason := range slices.Sorted(maps.Keys(r.Dropped)) {
			total += r.Dropped[reason]
			parts = append(parts, fmt.Sprintf("%s %d", reason, r.Dropped[reason]))
		}
		fmt.Fprintf(w, "dropped:  %d frames or lines (%s)\n", total, strings.Join(parts, ", "))
	}
	if r.Sandbox == "none" {
		fmt.Fprintf(w, "sandbox:  none — NO ISOLATION, the solution ran as a plain process\n")
	} else {
		fmt.Fprintf(w, "sandbox:  %s\n", r.Sandbox)
	}
	printExit(w, r.Exit)
	printLMUsage(w, r)
	if d := string(r.Details); d != "{}" && d != "" {
		fmt.Fprintf(w, "details:  %s\n", d)
	}
	// The evaluator's stderr ends its output; the solution's is shown
	// apart, as it is often the only word on why it did not start.
	if e := r.Exit.Solution; e != nil && e.Stderr != "" {
		fmt.Fprintf(w, "solution stderr (last lines):\n%s\n", tailLines(e.Stderr, 20))
	}
	switch {
	case r.Output != "" && r.Status == judge.CompileError:
		fmt.Fprintf(w, "compiler output (tail):\n%s\n", tailLines(r.Output, 30))
	case r.Output != "":
		fmt.Fprintf(w, "evaluator output (tail):\n%s\n", tailLines(r.Output, 20))
	}
}

// printExit shows how the sides ended, only when one of them died by a
// signal or exited non-zero: a clean exit of both is not news.
func printExit(w io.Writer, e judge.Exits) {
	notable := false
	var parts []string
	for _, s := range []struct {
		name string
		exit *judge.ProcessExit
	}{{"evaluator", e.Evaluator}, {"solution", e.Solution}} {
		x := s.exit
		var how string
		switch {
		case x == nil:
			continue
		case x.Signal != "":
			how = x.Signal
			if x.KilledByJudge {
				how += " (killed by the judge)"
			}
			notable = true
		case x.ExitCode != nil:
			how = fmt.Sprintf("exit %d", *x.ExitCode)
			notable = notable || *x.ExitCode != 0
		default:
			how = "unknown: " + x.Error
			notable = true
		}
		parts = append(parts, s.name+" "+how)
	}
	if notable {
		fmt.Fprintf(w, "ended:    %s\n", strings.Join(parts, ", "))
	}
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// startLiveLine shows elapsed time and calls on a terminal a few times a
// second; the returned func clears the line and waits for the goroutine.
// live counts the calls for it, nil when w is not a terminal: a run whose
// line nobody sees is told no progress (a progress event costs the relay
// work on every call).
func startLiveLine(w io.Writer) (stop func(), live judge.Observer) {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(f) {
		return func() {}, nil
	}
	counter := &callCounter{}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	start := time.Now()
	go func() {
		defer wg.Done()
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				fmt.Fprint(f, "\r\033[K")
				return
			case <-tick.C:
				fmt.Fprintf(f, "\r\033[Kjudging… %.1fs, %d calls", time.Since(start).Seconds(), counter.calls.Load())
			}
		}
	}()
	return func() { close(done); wg.Wait() }, counter
}

// isTerminal reports whether f is a character device other than the null
// device (a script's stderr is often /dev/null, a character device too).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}

// callCounter keeps the live line's count of calls; it wants progress
// events only.
type callCounter struct{ calls atomic.Int64 }

func (c *callCounter) Observe(ev *judge.Event)      { c.calls.Store(ev.Stats.Calls) }
func (c *callCounter) Wants(k judge.EventKind) bool { return k == judge.EventProgress }
