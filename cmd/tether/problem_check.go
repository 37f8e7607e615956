package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/dual"
	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/schemas"
	"github.com/tether-dev/tether/worker"
)

// verdictFolders are the folders of submissions/ and the verdict each
// expects: the Kattis problem-package names, plus partially_correct for
// tether's PartiallyCorrect.
var verdictFolders = []struct {
	name   string
	status judge.Status
}{
	{"accepted", judge.Accepted},
	{"wrong_answer", judge.WrongAnswer},
	{"partially_correct", judge.PartiallyCorrect},
	{"run_time_error", judge.RuntimeError},
	{"time_limit_exceeded", judge.TimeLimitExceeded},
	{"memory_limit_exceeded", judge.MemoryLimitExceeded},
	{"compile_error", judge.CompileError},
}

func init() {
	var asJSON bool
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
			return runProblemCheck(cmd, args[0], asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as one JSON object")
	cmd.Flags().String("sandbox", "auto", sandboxUsage)
	addAllowCommandFlag(cmd)
	addJudgeLMFlags(cmd)
	addLanguageFlags(cmd)
	problemCmd.AddCommand(cmd)
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

func runProblemCheck(cmd *cobra.Command, dir string, asJSON bool) error {
	rep := &checkReport{Problem: dir, Issues: []checkIssue{}, Submissions: []checkRow{}, Margin: []checkMargin{}, Warnings: []string{}}
	problem := validateProblem(dir, allowedCommands(cmd), rep)
	subs := listSubmissions(dir, rep)
	if problem != nil && len(subs) > 0 {
		if err := judgeSubmissions(cmd, problem, subs, rep); err != nil {
			return err
		}
	}
	rep.OK = len(rep.Issues) == 0
	for _, r := range rep.Submissions {
		rep.OK = rep.OK && r.OK
	}
	nothingToJudge := problem != nil && len(subs) == 0
	if err := report(cmd.OutOrStdout(), asJSON, rep, func(w io.Writer, rep *checkReport) { printCheckReport(w, rep, nothingToJudge) }); err != nil {
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

// validateProblem checks problem.json and what it names; it returns the
// loaded problem when it can be judged: nothing is wrong with it but
// unknown fields.
func validateProblem(dir string, allowed []string, rep *checkReport) *judge.Problem {
	add := func(file, field, msg string) {
		rep.Issues = append(rep.Issues, checkIssue{File: file, Field: field, Message: msg})
	}
	raw, err := os.ReadFile(filepath.Join(dir, "problem.json"))
	if err != nil {
		add("problem.json", "", "cannot be read ("+errors.Unwrap(err).Error()+"); a problem folder holds problem.json, see docs/problem.md")
		return nil
	}
	issues, err := schemas.Check(schemas.Problem, raw)
	if err != nil {
		add("problem.json", "", err.Error())
		return nil
	}
	unknown := 0 // unknown fields do not stop the judging, as they do not stop tether judge
	for _, i := range issues {
		add("problem.json", i.Path, i.Message)
		if i.Unknown {
			unknown++
		}
	}
	if len(issues) > unknown {
		return nil // the loader would only repeat what the schema said
	}
	p, err := judge.LoadProblem(dir, allowed)
	if err != nil {
		var pe *judge.ProblemError
		if errors.As(err, &pe) {
			file, _ := filepath.Rel(absOr(dir), pe.Path)
			msg := pe.Err.Error()
			if errors.Is(err, judge.ErrCommandNotAllowed) {
				msg += " (change the command, or allow its first word with --allow-command)"
			}
			add(file, pe.Field, msg)
		} else {
			add("problem.json", "", err.Error())
		}
		return nil
	}
	for _, arg := range p.Runtime.Evaluator.Command[1:] {
		// A word that names a file of the folder (evaluate.py, lib/run.js)
		// must be there; the loader checks only the default command's.
		arg = strings.TrimPrefix(arg, worker.Workspace+"/") // where tether worker shows the folder
		if strings.HasPrefix(arg, "-") || filepath.IsAbs(arg) || filepath.Ext(arg) == "" || !filepath.IsLocal(arg) {
			continue
		}
		if _, err := os.Stat(filepath.Join(p.Dir, arg)); err != nil {
			add(filepath.ToSlash(arg), "", "evaluator file not found; runtime_config.evaluator.command runs it")
		}
	}
	if _, err := p.LM(); err != nil {
		add("problem.json", "runtime_config.lm", err.Error())
		return nil
	}
	for _, i := range limitIssues(p) {
		add("problem.json", i.Field, i.Message)
	}
	if len(rep.Issues) > unknown {
		return nil // judging a problem that cannot work would only add noise
	}
	return p
}

func absOr(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// minMemoryMB is the least memory a side may be given: below it not even a
// Python interpreter starts.
const minMemoryMB = 16

// limitIssues finds limits that contradict each other or cannot work.
func limitIssues(p *judge.Problem) []checkIssue {
	rc := p.Runtime
	var out []checkIssue
	if rc.Solution.CallTimeoutMs > rc.Evaluator.TimeLimitMs {
		out = append(out, checkIssue{Field: "runtime_config.solution.call_timeout_ms", Message: fmt.Sprintf(
			"%d ms is longer than the whole evaluation (runtime_config.evaluator.time_limit_ms %d ms): a slow call would end the run as TimeLimitExceeded before it could time out",
			rc.Solution.CallTimeoutMs, rc.Evaluator.TimeLimitMs)})
	}
	if rc.Solution.CPUTimeLimitMs < rc.Solution.CallTimeoutMs {
		out = append(out, checkIssue{Field: "runtime_config.solution.cpu_time_limit_ms", Message: fmt.Sprintf(
			"%d ms is less than one call's deadline (call_timeout_ms %d ms): a busy call would exhaust the whole run's CPU before it could time out",
			rc.Solution.CPUTimeLimitMs, rc.Solution.CallTimeoutMs)})
	}
	for _, m := range []struct {
		field string
		mb    int64
	}{{"runtime_config.evaluator.memory_limit_mb", rc.Evaluator.MemoryLimitMB}, {"runtime_config.solution.memory_limit_mb", rc.Solution.MemoryLimitMB}} {
		if m.mb < minMemoryMB {
			out = append(out, checkIssue{Field: m.field, Message: fmt.Sprintf("%d MiB is too little to start an interpreter; give at least %d", m.mb, minMemoryMB)})
		}
	}
	return out
}

type submission struct {
	rel      string // path under the problem folder, for the report
	path     string
	expected judge.Status
}

// listSubmissions reads submissions/<verdict>/*; an unknown folder is an
// issue. Hidden files and READMEs are not submissions.
func listSubmissions(dir string, rep *checkReport) []submission {
	root := filepath.Join(dir, "submissions")
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		rep.Issues = append(rep.Issues, checkIssue{File: "submissions", Message: err.Error()})
		return nil
	}
	var names []string
	for _, f := range verdictFolders {
		names = append(names, f.name)
	}
	var subs []submission
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || !e.IsDir() && isReadme(e.Name()) {
			continue
		}
		i := slices.IndexFunc(verdictFolders, func(f struct {
			name   string
			status judge.Status
		}) bool {
			return f.name == e.Name()
		})
		if i < 0 || !e.IsDir() {
			rep.Issues = append(rep.Issues, checkIssue{File: "submissions/" + e.Name(),
				Message: "not a verdict folder; submissions/ holds folders named " + strings.Join(names, ", ")})
			continue
		}
		files, err := os.ReadDir(filepath.Join(root, e.Name()))
		if err != nil {
			rep.Issues = append(rep.Issues, checkIssue{File: "submissions/" + e.Name(), Message: err.Error()})
			continue
		}
		for _, f := range files {
			if strings.HasPrefix(f.Name(), ".") || isReadme(f.Name()) {
				continue
			}
			rel := "submissions/" + e.Name() + "/" + f.Name()
			path := filepath.Join(root, e.Name(), f.Name())
			if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
				rep.Issues = append(rep.Issues, checkIssue{File: rel, Message: "not a readable regular file"})
				continue
			}
			subs = append(subs, submission{rel: rel, path: path, expected: verdictFolders[i].status})
		}
	}
	return subs
}

func isReadme(name string) bool { return strings.HasPrefix(strings.ToLower(name), "readme") }

// judgeSubmissions judges each submission in turn (one at a time, so that
// their times are comparable) and fills the rows and the margin.
func judgeSubmissions(cmd *cobra.Command, problem *judge.Problem, subs []submission, rep *checkReport) error {
	languages, cache, err := languageOptions(cmd)
	if err != nil {
		return err
	}
	runner, lmStarter, err := judgeRunnerAndLM(cmd, problem)
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

// warnUnknownFields prints, for tether judge, the fields of problem.json
// that the schema does not know. The judge runs the problem anyway (a
// Neuro OJ problem may carry fields of its own), but a typo is worth a line.
func warnUnknownFields(w io.Writer, p *judge.Problem) {
	issues, err := schemas.Check(schemas.Problem, p.Raw)
	if err != nil {
		return
	}
	for _, i := range issues {
		if i.Unknown {
			fmt.Fprintf(w, "warning: problem.json: %s (ignored; tether problem check reports it as an error)\n", i)
		}
	}
}
