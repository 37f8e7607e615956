package service

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"

	"github.com/tether-dev/tether/internal/version"
	"github.com/tether-dev/tether/jsonrpc"
	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/sandbox"
)

// LMClient completes LM requests; *lm.Client is one (it forwards to an LM
// handler such as `tether lm serve`).
type LMClient interface {
	Do(ctx context.Context, req *lm.Request) (*lm.Response, error)
}

// Options configure a Service. A nil *Options means the defaults.
type Options struct {
	// Runner starts both sides of judge runs; required for judge.run (nil
	// answers it with an internal error naming the Runner option).
	Runner sandbox.Runner
	// Judge is the base of every run's options (Env, PythonPath, timeouts);
	// Runner and SubmissionID are set per run, and the run's progress
	// observer is added to Judge.Observer.
	Judge judge.Options
	// AllowedCommands is the allow-list of the first word of a problem's
	// evaluator command (docs/protocol/judge.md: configurable); nil means
	// judge.DefaultAllowedCommands. A problem whose command is not on it is
	// refused with -32602 before anything runs.
	AllowedCommands []string
	// ProblemsRoot and SubmissionsRoot, when set, are the only folders
	// whose files judge.run reads for a problem path and a solution.path
	// (relative paths are taken from them; links leading out are
	// refused). Without one, such paths are refused when PathsNeedRoot is
	// set (a server other clients reach) and read as given otherwise (the
	// caller's own process, --stdio).
	ProblemsRoot, SubmissionsRoot string
	PathsNeedRoot                 bool
	// AllowNetwork lets a problem's evaluator have the network
	// (runtime_config.evaluator.network.enabled); without it such a
	// problem is refused with -32602.
	AllowNetwork bool
	// LM answers lm.complete; nil answers it with CodeNoLM.
	LM LMClient
	// Logger gets a line when a run starts, ends or is refused or
	// cancelled, and what cannot be answered, each with the request's
	// trace_id when it has one; nil discards.
	Logger *slog.Logger
}

// CodeNoLM answers lm.complete when no LM handler is configured.
const CodeNoLM = -32002

// CodeLMError answers lm.complete when the LM handler answered with an
// error (an unknown model, a spent budget, a failed backend); the message
// is the handler's.
const CodeLMError = -32003

// Service holds the runs in flight. Use Mux to serve it.
type Service struct {
	opts Options
	log  *slog.Logger

	mu   sync.Mutex // protects runs
	runs map[runKey]context.CancelCauseFunc
}

// runKey is a run as its owner knows it: a run belongs to the client that
// started it (jsonrpc.Principal), and only that client can cancel it.
type runKey struct {
	owner any
	id    string
}

// New returns a Service.
func New(opts *Options) *Service {
	s := &Service{runs: make(map[runKey]context.CancelCauseFunc)}
	if opts != nil {
		s.opts = *opts
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// logger is the service's logger for a request: with trace_id when the
// client sent one (params._meta.traceId or traceparent, docs/serve.md),
// so that every line about the request can be found by it.
func (s *Service) logger(ctx context.Context) *slog.Logger {
	if id := jsonrpc.TraceID(ctx); id != "" {
		return s.log.With("trace_id", id)
	}
	return s.log
}

// Mux returns a new Mux with the service's methods registered.
func (s *Service) Mux() *jsonrpc.Mux {
	mux := jsonrpc.NewMux()
	jsonrpc.Register(mux, "judge.run", s.judgeRun)
	jsonrpc.Register(mux, "judge.cancel", s.judgeCancel)
	jsonrpc.Register(mux, "lm.complete", s.lmComplete)
	mux.AddFunc("tether.version", s.tetherVersion)
	describe(mux)
	return mux
}

// VersionResult is tether.version's result.
type VersionResult struct {
	Version   string            `json:"version"`
	Protocols map[string]string `json:"protocols"`
}

// tetherVersion takes no params: none, [] or an object with no member but
// _meta (where every request may carry its progress token and trace id).
func (s *Service) tetherVersion(_ context.Context, req *jsonrpc.Request) (any, error) {
	if p := req.Params; p != nil && string(p) != "[]" && !onlyMeta(p) {
		return nil, jsonrpc.InvalidParams("tether.version takes no params, got %.200s", p)
	}
	return VersionResult{Version: version.Version, Protocols: version.Protocols}, nil
}

// onlyMeta reports whether params is an object with no member but _meta.
func onlyMeta(params json.RawMessage) bool {
	var members map[string]json.RawMessage
	if json.Unmarshal(params, &members) != nil || members == nil {
		return false
	}
	for name := range members {
		if name != "_meta" {
			return false
		}
	}
	return true
}

func (s *Service) lmComplete(ctx context.Context, req *lm.Request) (json.RawMessage, error) {
	if req == nil {
		return nil, jsonrpc.InvalidParams(`lm.complete needs an LMRequest object {"prompt": ...}`)
	}
	if !req.Batched() && req.Prompt == nil {
		return nil, jsonrpc.InvalidParams(`lm.complete needs "prompt" (a string or chat messages) or a non-empty "prompts" list`)
	}
	if s.opts.LM == nil {
		return nil, &jsonrpc.Error{Code: CodeNoLM, Message: "no LM handler configured (start tether serve with --lm ADDR)"}
	}
	resp, err := s.opts.LM.Do(ctx, req)
	var remote *lm.RemoteError
	if errors.As(err, &remote) {
		return nil, &jsonrpc.Error{Code: CodeLMError, Message: "LM handler: " + remote.Message}
	}
	if err != nil {
		return nil, err
	}
	return resp.AppendJSON(nil), nil
}
