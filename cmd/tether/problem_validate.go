package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

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
