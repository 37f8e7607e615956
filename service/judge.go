package service

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/privdir"
	"github.com/tether-dev/tether/internal/suggest"
	"github.com/tether-dev/tether/jsonrpc"
	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/trace"
)

// RunParams are judge.run's params.
type RunParams struct {
	// Problem is a folder path (a JSON string) or an inline bundle
	// {"files": {"relative/path": "content", ...}}.
	Problem      json.RawMessage `json:"problem"`
	Solution     SolutionParams  `json:"solution"`
	SubmissionID string          `json:"submission_id,omitempty"`
	// Trace asks for the run's trace (docs/trace.md) in the result's
	// "trace" member: its lines as one JSON array, capped at TraceMax.
	Trace bool `json:"trace,omitempty"`
}

// TraceMax caps the trace judge.run returns with "trace": true; past it the
// trace only counts what it leaves out and says so in its end line.
const TraceMax = 8 << 20

// RunResult is judge.run's result: the judge's result, and its trace when
// asked for.
type RunResult struct {
	*judge.Result
	Trace json.RawMessage `json:"trace,omitempty"`
}

// SolutionParams say what to run as the solution: Code or Path. Language
// is its language (an id or alias, docs/languages.md); without it, a
// path's extension tells it and inline code is Python. A problem with its
// own runtime_config.solution.command ignores it.
type SolutionParams struct {
	Language string  `json:"language,omitempty"`
	Code     *string `json:"code,omitempty"`
	Path     string  `json:"path,omitempty"`
}

// CancelParams are judge.cancel's params.
type CancelParams struct {
	SubmissionID string `json:"submission_id"`
}

// CancelResult is judge.cancel's result.
type CancelResult struct {
	Cancelled bool `json:"cancelled"`
}

// errCancelledByClient is the cause of a run stopped by judge.cancel.
var errCancelledByClient = errors.New("judge.cancel")

func (s *Service) judgeRun(ctx context.Context, p RunParams) (*RunResult, error) {
	log := s.logger(ctx)
	problem, cleanup, err := s.loadProblem(p.Problem)
	if err != nil {
		logRefused(log, p.SubmissionID, err)
		return nil, err
	}
	defer cleanup()
	if err := s.checkProblemPolicy(problem); err != nil {
		logRefused(log, p.SubmissionID, err)
		return nil, err
	}
	if s.opts.Runner != nil {
		// The sandbox user must read the folder: a configuration error the
		// caller can fix, answered before anything runs.
		if err := judge.CheckProblemAccess(problem, s.opts.Runner); err != nil {
			logRefused(log, p.SubmissionID, err)
			return nil, jsonrpc.InvalidParams("problem: %w", err)
		}
	}
	sub, err := s.loadSolution(p.Solution)
	if err != nil {
		logRefused(log, p.SubmissionID, err)
		return nil, err
	}
	if s.opts.Runner == nil {
		return nil, errors.New("service: judge.run needs a sandbox runner (service Options.Runner is not set)")
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	owner := jsonrpc.Principal(ctx)
	id, err := s.claim(owner, p.SubmissionID, cancel)
	if err != nil {
		logRefused(log, p.SubmissionID, err)
		return nil, err
	}
	defer s.release(owner, id)
	log = log.With("submission_id", id)
	log.Info("judge.run started", "problem", problem.Title)

	opts := s.opts.Judge
	opts.Runner, opts.SubmissionID = s.opts.Runner, id
	pump := startPump(func(v progressValue) {
		if err := jsonrpc.Progress(ctx, v); err != nil {
			log.Debug("service: progress not sent", "err", err)
		}
	})
	start := time.Now()
	var traceBuf bytes.Buffer
	var tw *trace.Writer
	if p.Trace {
		tw = trace.NewWriter(&traceBuf, trace.HeaderFor(problem, sub, id, s.opts.Runner.Kind()), TraceMax)
		opts.Observer = judge.Observers(opts.Observer, tw)
	}
	opts.Observer = judge.Observers(opts.Observer, progressObserver(pump, start))
	pump.offer(progressValue{Phase: "started", SubmissionID: id})
	res, err := judge.Run(runCtx, problem, sub, &opts)
	var traceJSON json.RawMessage
	if tw != nil {
		if cerr := tw.Close(); cerr != nil {
			log.Warn("judge.run: trace not kept", "err", cerr)
		} else {
			traceJSON = linesAsArray(traceBuf.Bytes())
		}
	}
	if err == nil {
		pump.offer(progressValue{Phase: "finished", Calls: int64(res.Calls.Count), ElapsedMs: time.Since(start).Milliseconds()})
	}
	pump.stop()
	if err != nil {
		reason := "connection closed or $/cancelRequest"
		if errors.Is(context.Cause(runCtx), errCancelledByClient) {
			reason = "judge.cancel"
		}
		log.Info("judge.run cancelled", "reason", reason, "elapsed_ms", time.Since(start).Milliseconds())
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeCancelled, Message: "request cancelled",
			Data: mustJSON(map[string]string{"submission_id": id, "reason": reason})}
	}
	log.Info("judge.run finished", "status", res.Status, "score", res.Score, "calls", res.Calls.Count,
		"elapsed_ms", time.Since(start).Milliseconds())
	return &RunResult{Result: res, Trace: traceJSON}, nil
}

// linesAsArray joins JSON lines into one JSON array.
func linesAsArray(lines []byte) json.RawMessage {
	lines = bytes.TrimRight(lines, "\n")
	out := make([]byte, 0, len(lines)+2)
	out = append(out, '[')
	out = append(out, bytes.ReplaceAll(lines, []byte("\n"), []byte(","))...)
	return append(out, ']')
}

// logRefused logs a judge.run answered with an error before it ran.
func logRefused(log *slog.Logger, submissionID string, err error) {
	var ip *jsonrpc.InvalidParamsError
	if errors.As(err, &ip) {
		err = ip.Err // the reason, without the "jsonrpc: invalid params" prefix
	}
	log.Info("judge.run refused", "submission_id", submissionID, "err", err)
}

func (s *Service) judgeCancel(ctx context.Context, p CancelParams) (CancelResult, error) {
	if p.SubmissionID == "" {
		return CancelResult{}, jsonrpc.InvalidParams(`judge.cancel needs {"submission_id": "..."}`)
	}
	s.mu.Lock()
	cancel, ok := s.runs[runKey{jsonrpc.Principal(ctx), p.SubmissionID}]
	s.mu.Unlock()
	if ok {
		cancel(errCancelledByClient)
	}
	s.logger(ctx).Info("judge.cancel", "submission_id", p.SubmissionID, "cancelled", ok)
	return CancelResult{Cancelled: ok}, nil
}

// claim records owner's run under its submission id, generating an
// unguessable one if empty.
func (s *Service) claim(owner any, id string, cancel context.CancelCauseFunc) (string, error) {
	if id == "" {
		var b [16]byte
		rand.Read(b[:])
		id = "run-" + hex.EncodeToString(b[:])
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := runKey{owner, id}
	if _, busy := s.runs[key]; busy {
		return "", jsonrpc.InvalidParams("submission_id %q is already running", id)
	}
	s.runs[key] = cancel
	return id, nil
}

func (s *Service) release(owner any, id string) {
	s.mu.Lock()
	delete(s.runs, runKey{owner, id})
	s.mu.Unlock()
}

// loadProblem reads a problem from a path (under ProblemsRoot when one is
// set or needed) or writes an inline bundle to a temporary folder that
// cleanup removes.
func (s *Service) loadProblem(raw json.RawMessage) (*judge.Problem, func(), error) {
	allowed := s.opts.AllowedCommands
	noop := func() {}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, noop, jsonrpc.InvalidParams(`judge.run needs "problem": a folder path or {"files": {...}}`)
	}
	var dir string
	if json.Unmarshal(raw, &dir) == nil {
		if s.opts.ProblemsRoot != "" || s.opts.PathsNeedRoot {
			real, err := resolveUnder(s.opts.ProblemsRoot, dir, "problem", "--problems-root")
			if err != nil {
				return nil, noop, err
			}
			// problem.json is read by the judge itself: not through a link out.
			if _, err := readUnder(s.opts.ProblemsRoot, filepath.Join(real, "problem.json"), "problem"); err != nil {
				return nil, noop, err
			}
			dir = real
		}
		p, err := judge.LoadProblem(dir, allowed)
		if err != nil {
			return nil, noop, jsonrpc.InvalidParams("problem: %w", err)
		}
		return p, noop, nil
	}
	var bundle struct {
		Files map[string]string `json:"files"`
	}
	if err := json.Unmarshal(raw, &bundle); err != nil || len(bundle.Files) == 0 {
		return nil, noop, jsonrpc.InvalidParams(`problem must be a folder path or {"files": {"name": "content"}}`)
	}
	names, err := bundleNames(bundle.Files)
	if err != nil {
		return nil, noop, err
	}
	tmp, dir, err := bundleDir()
	if err != nil {
		return nil, noop, fmt.Errorf("problem bundle: %w", err)
	}
	cleanup := func() { os.RemoveAll(tmp) }
	if err := writeBundle(dir, names, bundle.Files); err != nil {
		cleanup()
		return nil, noop, err
	}
	p, err := judge.LoadProblem(dir, allowed)
	if err != nil {
		cleanup()
		return nil, noop, jsonrpc.InvalidParams("problem bundle: %w", err)
	}
	// A bundle has no folder of its own on the server for a path to name.
	if declared, err := p.LM(); err == nil && declared.Path != "" {
		cleanup()
		return nil, noop, jsonrpc.InvalidParams("problem: runtime_config.lm: an inline bundle carries its LM configuration as an object, not a file path (put the file's JSON in its place)")
	}
	return p, cleanup, nil
}

// bundleDir makes the folder of an inline problem: the sandbox user (not
// the judge's) must read it, so it is world-readable, but it sits under a
// private temporary folder with an unguessable name (privdir).
func bundleDir() (tmp, dir string, err error) {
	return privdir.New("", "tether-problem-")
}

func (s *Service) loadSolution(p SolutionParams) (*judge.Submission, error) {
	sub, err := s.loadSolutionFile(p)
	if err != nil {
		return nil, err
	}
	// The judge tells the language (an unknown one is CompileError naming
	// the known ones), unless the problem starts the solution its own way.
	sub.Language = p.Language
	return sub, nil
}

func (s *Service) loadSolutionFile(p SolutionParams) (*judge.Submission, error) {
	switch {
	case p.Code != nil && p.Path != "":
		return nil, jsonrpc.InvalidParams(`solution: give "code" or "path", not both`)
	case p.Code != nil:
		return &judge.Submission{Path: judge.SolutionFileName, Code: []byte(*p.Code)}, nil
	case p.Path != "" && (s.opts.SubmissionsRoot != "" || s.opts.PathsNeedRoot):
		real, err := resolveUnder(s.opts.SubmissionsRoot, p.Path, "solution.path", "--submissions-root")
		if err != nil {
			return nil, err
		}
		code, err := readUnder(s.opts.SubmissionsRoot, real, "solution.path")
		if err != nil {
			return nil, err
		}
		return &judge.Submission{Path: real, Code: code}, nil
	case p.Path != "":
		sub, err := judge.LoadSubmission(p.Path)
		if err != nil {
			return nil, jsonrpc.InvalidParams("solution.path: %w", err)
		}
		return sub, nil
	}
	return nil, jsonrpc.InvalidParams(`judge.run needs "solution": {"code": "..."} or {"path": "..."}`)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only called with maps of strings
	}
	return b
}

// UnmarshalJSON decodes judge.run's params, refusing a member it does not
// know (a misspelt "soluton" would otherwise be dropped without a word and
// the run fail for a missing solution): the error names it and the
// nearest known name, as problem.json's checks and the CLI's flags do.
func (p *RunParams) UnmarshalJSON(data []byte) error {
	if err := unknownMembers("", data, reflect.TypeFor[RunParams]()); err != nil {
		return err
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(data, &members) == nil {
		if sol, ok := members["solution"]; ok {
			if err := unknownMembers("solution.", sol, reflect.TypeFor[SolutionParams]()); err != nil {
				return err
			}
		}
	}
	type plain RunParams // without this method
	return json.Unmarshal(data, (*plain)(p))
}

// unknownMembers refuses a member of the JSON object data that is none of
// t's fields by their JSON names (nor _meta, which every request may
// carry); data that is not an object is left to the decoder's message.
func unknownMembers(prefix string, data []byte, t reflect.Type) error {
	var members map[string]json.RawMessage
	if json.Unmarshal(data, &members) != nil {
		return nil
	}
	var known []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.IsExported() && name != "-" && name != "" {
			known = append(known, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(members)) {
		if name == "_meta" || slices.Contains(known, name) {
			continue
		}
		return fmt.Errorf("%s%s: %s", prefix, name, suggest.UnknownMessage("parameter", name, known))
	}
	return nil
}
