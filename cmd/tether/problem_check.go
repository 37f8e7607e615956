package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/dual"
	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/schemas"
)

// problemCheckOptions are tether problem check's flags.
type problemCheckOptions struct {
	JSON          bool
	Sandbox       string
	AllowCommands []string
	LM            lmHandlerOptions
	Build         buildOptions
}

func newProblemCheckCmd(m machine) *cobra.Command {
	o := &problemCheckOptions{}
	cmd := &cobra.Command{
		Use:   "check PROBLEM_DIR",
		Short: "Validate a problem folder and judge every submission under submissions/",
		Long: `check validates problem.json against schemas/problem.schema.json (unknown or
misspelt fields are errors here, naming the nearest known field), checks the
evaluator command against the allow-list and the limits against each other,
then judges every file under submissions/<verdict>/ and prints one row per
file: expected verdict, verdict, score, time and the slowest call. Folders:
accepted, wrong_answer, partially_correct, run_time_error,
time_limit_exceeded, memory_limit_exceeded, compile_error. Each file is
judged in its own language, told by its extension (docs/languages.md).

It ends with the time margin: how close the slowest accepted submission came
to each limit. The exit status is non-zero when the problem has an error or a
submission's verdict differs from its folder's.

--sandbox takes what tether judge takes: auto, linux, rootless or none. Under
rootless, memory is limited and measured per process, not for the whole run
as under linux: check warns when a submission's memory verdict could differ
under linux (a memory_limit_exceeded submission that was not, an accepted one
whose largest process came close to the limit).`,
		Args: exactArgs(1, "check takes PROBLEM_DIR", "tether problem check examples/aplusb"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runProblemCheck(cmd, m, o, args[0])
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.JSON, "json", false, "print the report as one JSON object")
	addSandboxFlag(f, &o.Sandbox)
	addAllowCommandFlag(f, &o.AllowCommands, "")
	o.LM.addFlags(f)
	o.Build.addFlags(f)
	return cmd
}

// checkIssue is one error in the problem folder: which file, which field.
type checkIssue struct {
	File    string `json:"file"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

func (i checkIssue) String() string {
	if i.Field == "" {
		return i.File + ": " + i.Message
	}
	return i.File + ": " + i.Field + ": " + i.Message
}

// checkRow is one judged submission.
type checkRow struct {
	File          string `json:"file"`
	Expected      string `json:"expected"`
	Got           string `json:"got"`
	Score         int64  `json:"score"`
	TimeMs        int64  `json:"time_ms"`
	CPUMs         int64  `json:"cpu_ms"`
	MemoryKB      int64  `json:"memory_kb"`
	SlowestCallMs int64  `json:"slowest_call_ms"`
	SlowestCallFn string `json:"slowest_call_fn,omitempty"`
	Timeouts      int    `json:"call_timeouts"`
	OK            bool   `json:"ok"`
	Details       string `json:"details,omitempty"`
}

// checkMargin is how much of one limit the accepted submissions used at most.
type checkMargin struct {
	Limit   string  `json:"limit"` // the problem.json field
	Used    int64   `json:"used"`
	Of      int64   `json:"of"`
	Unit    string  `json:"unit"`
	Percent float64 `json:"percent"`
	File    string  `json:"file"` // the submission that came closest
}

type checkReport struct {
	Problem     string        `json:"problem"`
	OK          bool          `json:"ok"`
	Issues      []checkIssue  `json:"issues"`
	Submissions []checkRow    `json:"submissions"`
	Margin      []checkMargin `json:"margin"`
	// Warnings do not fail the check: what may be judged differently
	// elsewhere (under another sandbox).
	Warnings []string `json:"warnings"`
}

func runProblemCheck(cmd *cobra.Command, m machine, o *problemCheckOptions, dir string) error {
	rep := &checkReport{Problem: dir, Issues: []checkIssue{}, Submissions: []checkRow{}, Margin: []checkMargin{}, Warnings: []string{}}
	problem := validateProblem(dir, o.AllowCommands, rep)
	subs := listSubmissions(dir, rep)
	if problem != nil && len(subs) > 0 {
		if err := judgeSubmissions(cmd, m, o, problem, subs, rep); err != nil {
			return err
		}
	}
	rep.OK = len(rep.Issues) == 0
	for _, r := range rep.Submissions {
		rep.OK = rep.OK && r.OK
	}
	nothingToJudge := problem != nil && len(subs) == 0
	if err := report(cmd.OutOrStdout(), o.JSON, rep, func(w io.Writer, rep *checkReport) { printCheckReport(w, rep, nothingToJudge) }); err != nil {
		return err
	}
	if !rep.OK {
		return fmt.Errorf("problem check %s: %s", dir, checkSummary(rep))
	}
	return nil
}

func checkSummary(rep *checkReport) string {
	differ := 0
	for _, r := range rep.Submissions {
		if !r.OK {
			differ++
		}
	}
	var parts []string
	if n := len(rep.Issues); n > 0 {
		parts = append(parts, fmt.Sprintf("%d error(s) in the problem", n))
	}
	if differ > 0 {
		parts = append(parts, fmt.Sprintf("%d submission(s) got a verdict other than their folder's", differ))
	}
	return strings.Join(parts, ", ")
}

// judgeSubmissions judges each submission in turn (one at a time, so that
// their times are comparable) and fills the rows and the margin.
func judgeSubmissions(cmd *cobra.Command, m machine, o *problemCheckOptions, problem *judge.Problem, subs []submission, rep *checkReport) error {
	languages, cache, err := o.Build.languages()
	if err != nil {
		return err
	}
	runner, lmStarter, err := m.judgeRunnerAndLM(cmd.ErrOrStderr(), o.Sandbox, &o.LM, problem)
	if err != nil {
		return err
	}
	defer runner.Close()
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for _, s := range subs {
		opts := &judge.Options{Runner: runner, LM: lmStarter, SubmissionID: s.rel, Languages: languages, BuildCache: cache}
		row, err := judgeOne(ctx, opts, problem, s)
		if err != nil {
			return err
		}
		rep.Submissions = append(rep.Submissions, row)
	}
	rep.Margin = margins(problem, rep.Submissions)
	rep.Warnings = append(rep.Warnings, memoryWarnings(runner.Kind(), problem, rep.Submissions)...)
	return nil
}

// memoryWarnings: under the rootless sandbox memory is limited and measured
// per process (the largest one's peak), under linux for the whole run
// (every process and thread, and the kernel memory they cause), so the
// memory verdict of a submission may differ. It names each submission
// whose verdict could: a memory_limit_exceeded one that was judged
// otherwise, and an accepted one whose largest process used more than
// marginWarn percent of the limit.
func memoryWarnings(sandboxKind string, p *judge.Problem, rows []checkRow) []string {
	if sandboxKind != "rootless" {
		return nil
	}
	limitKB := p.Runtime.Solution.MemoryLimitMB * 1024
	var out []string
	for _, r := range rows {
		switch {
		case r.Expected == judge.MemoryLimitExceeded.String() && r.Got != r.Expected:
			out = append(out, fmt.Sprintf("%s: %s under the rootless sandbox, which limits memory per process; "+
				"the linux sandbox limits the whole run and may judge it %s: check it with --sandbox linux where that runs (tether doctor)",
				r.File, r.Got, judge.MemoryLimitExceeded))
		case r.Expected == judge.Accepted.String() && r.OK && limitKB > 0 && float64(r.MemoryKB)*100/float64(limitKB) > marginWarn:
			out = append(out, fmt.Sprintf("%s: its largest process used %d of %d KiB under the rootless sandbox; "+
				"the linux sandbox counts the whole run and may judge it %s: check it with --sandbox linux where that runs (tether doctor)",
				r.File, r.MemoryKB, limitKB, judge.MemoryLimitExceeded))
		}
	}
	return out
}

// judgeOne judges s with opts (a copy gets the observer of its slowest call).
func judgeOne(ctx context.Context, opts *judge.Options, problem *judge.Problem, s submission) (checkRow, error) {
	row := checkRow{File: s.rel, Expected: s.expected.String()}
	sub, err := judge.LoadSubmission(s.path)
	if err != nil {
		return row, err
	}
	var slowest time.Duration
	var slowestFn string
	slow := judge.ObserverFunc(func(ev *judge.Event) {
		// The evaluator's calls to the solution, answered or not.
		if ev.Kind == judge.EventCallClosed && ev.Side == dual.Evaluator && ev.Outcome != dual.EndRefused && ev.Took > slowest {
			slowest, slowestFn = ev.Took, string(ev.Name)
		}
	})
	o := *opts
	o.Observer = slow
	res, err := judge.Run(ctx, problem, sub, &o)
	if err != nil {
		return row, err
	}
	if issues, err := schemas.CheckValue(schemas.Result, res); err != nil || len(issues) > 0 {
		return row, fmt.Errorf("%s: the judge's result is outside schemas/result.schema.json (a bug in tether): %v %v", s.rel, issues, err)
	}
	row.Got, row.Score, row.TimeMs, row.CPUMs, row.MemoryKB = res.Status.String(), res.Score, res.TimeMs, res.CPUMs, res.MemoryKB
	row.SlowestCallMs, row.SlowestCallFn, row.Timeouts = slowest.Milliseconds(), slowestFn, res.Calls.Timeouts
	row.OK = res.Status == s.expected
	if !row.OK {
		row.Details = string(res.Details)
	}
	return row, nil
}

// margins: for each limit, the most any accepted submission used of it.
func margins(p *judge.Problem, rows []checkRow) []checkMargin {
	rc := p.Runtime
	limits := []struct {
		field string
		of    int64
		unit  string
		used  func(checkRow) int64
	}{
		{"runtime_config.evaluator.time_limit_ms", rc.Evaluator.TimeLimitMs, "ms", func(r checkRow) int64 { return r.TimeMs }},
		{"runtime_config.solution.call_timeout_ms", rc.Solution.CallTimeoutMs, "ms", func(r checkRow) int64 { return r.SlowestCallMs }},
		{"runtime_config.solution.cpu_time_limit_ms", rc.Solution.CPUTimeLimitMs, "ms", func(r checkRow) int64 { return r.CPUMs }},
		{"runtime_config.solution.memory_limit_mb", rc.Solution.MemoryLimitMB * 1024, "KiB", func(r checkRow) int64 { return r.MemoryKB }},
	}
	var out []checkMargin
	for _, l := range limits {
		m := checkMargin{Limit: l.field, Of: l.of, Unit: l.unit}
		found := false
		for _, r := range rows {
			if r.Expected != judge.Accepted.String() || !r.OK {
				continue
			}
			if u := l.used(r); !found || u > m.Used {
				m.Used, m.File, found = u, r.File, true
			}
		}
		if !found || l.of <= 0 {
			continue
		}
		m.Percent = float64(m.Used) * 100 / float64(l.of)
		out = append(out, m)
	}
	return out
}

// marginWarn is the share of a limit past which the margin is flagged.
const marginWarn = 50.0

func printCheckReport(w io.Writer, rep *checkReport, nothingToJudge bool) {
	for _, i := range rep.Issues {
		fmt.Fprintf(w, "error: %s\n", i)
	}
	if len(rep.Submissions) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "submission\texpected\tgot\tscore\ttime\tslowest call\t")
		for _, r := range rep.Submissions {
			mark := "ok"
			if !r.OK {
				mark = "DIFFERS"
			}
			call := fmt.Sprintf("%d ms", r.SlowestCallMs)
			if r.SlowestCallFn != "" {
				call += " (" + r.SlowestCallFn + ")"
			}
			if r.Timeouts > 0 {
				call += fmt.Sprintf(", %d timed out", r.Timeouts)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d.%02d\t%d ms\t%s\t%s\n", r.File, r.Expected, r.Got, r.Score/100, r.Score%100, r.TimeMs, call, mark)
		}
		tw.Flush()
		for _, r := range rep.Submissions {
			if !r.OK && r.Details != "" && r.Details != "{}" {
				fmt.Fprintf(w, "%s: details %s\n", r.File, r.Details)
			}
		}
	}
	if nothingToJudge {
		fmt.Fprintln(w, "no submissions to judge: put them under submissions/accepted/, submissions/wrong_answer/, …")
	}
	if len(rep.Margin) > 0 {
		fmt.Fprintln(w, "margin (the most an accepted submission used of each limit):")
		for _, m := range rep.Margin {
			flag := ""
			if m.Percent > marginWarn {
				flag = "  <- close to the limit"
			}
			fmt.Fprintf(w, "  %-42s %d of %d %s (%.1f%%, %s)%s\n", m.Limit, m.Used, m.Of, m.Unit, m.Percent, m.File, flag)
		}
	}
	for _, warning := range rep.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
	if rep.OK {
		fmt.Fprintln(w, "ok")
	}
}
