package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tether-dev/tether/dual"
	"github.com/tether-dev/tether/internal/rootfile"

	"github.com/tether-dev/tether/sandbox"
)

// LMAddrEnv is the evaluator's environment variable holding the run's LM
// handler address ("unix:PATH"), as the Python SDK's tether_sdk.lm reads it.
const LMAddrEnv = "TETHER_LM_ADDR"

// lmSocketName is the socket's name inside the run's private directory.
const lmSocketName = "lm.sock"

// ErrNoLMHandler: the problem declares runtime_config.lm but the judge was
// given no Options.LM to start a handler with.
var ErrNoLMHandler = errors.New("problem declares runtime_config.lm but this judge has no LM handler support (Options.LM is nil)")

// LMHandler is a language-model handler serving one run (package
// judge/lmstart builds one from package lm/lmconfig). The judge calls
// UsageJSON once, after the evaluator has stopped, then Close once; both are
// called from the run's goroutine.
type LMHandler interface {
	// UsageJSON is what the run's code spent, a JSON object copied into
	// Result.LMUsage.
	UsageJSON() (json.RawMessage, error)
	// Close stops the handler, waits for its goroutines and removes its socket.
	Close() error
}

// LMStarter starts the LM handler of one run, listening on the Unix socket
// at socketPath (in a directory the judge created for the run and removes
// afterwards). observe, when not nil, must be told about each prompt the
// handler answers or fails (it may be called concurrently; the judge
// orders the calls). It may return (nil, nil): this run gets no handler. The
// socket file must be connectable by the sandbox's unprivileged uid; the
// judge makes it so after LMStarter returns. It is called from the run's
// goroutine, before the evaluator starts; concurrent runs call it
// concurrently.
type LMStarter func(ctx context.Context, p *Problem, socketPath string, observe func(LMRequest)) (LMHandler, error)

// LMRequest is one prompt the run's LM handler answered or failed
// (EventLM), with what the handler's budget stood at after it.
type LMRequest struct {
	Model           string   `json:"model,omitempty"` // the model asked for; "" for the default
	Backend         string   `json:"backend"`         // the backend that served it
	Depth           int      `json:"depth"`
	PromptBytes     int      `json:"prompt_bytes"`
	CompletionBytes int      `json:"completion_bytes"`
	InputTokens     int64    `json:"input_tokens"`
	OutputTokens    int64    `json:"output_tokens"`
	LatencyUs       int64    `json:"latency_us"`
	Error           string   `json:"error,omitempty"`
	Budget          LMBudget `json:"budget"`
}

// LMBudget is what a run's LM handler has spent; a zero limit is unlimited.
type LMBudget struct {
	Calls       int64 `json:"calls"`
	CallsLimit  int64 `json:"calls_limit,omitempty"`
	Tokens      int64 `json:"tokens"`
	TokensLimit int64 `json:"tokens_limit,omitempty"`
}

// ProblemLM is a problem's runtime_config.lm: either an inline handler
// configuration (the JSON object of `tether judge --lm-config FILE`) or a
// string naming such a file inside the problem folder (ReadLMConfig).
type ProblemLM struct {
	Inline json.RawMessage // the object as written; nil when Path is used or absent
	Path   string          // the file's name relative to the problem folder (filepath.IsLocal); "" when Inline is used or absent
}

// MaxLMConfigBytes caps the file runtime_config.lm names.
const MaxLMConfigBytes = 1 << 20

// Declared reports whether runtime_config.lm is present (and not null).
func (l ProblemLM) Declared() bool { return l.Inline != nil || l.Path != "" }

// LM reads runtime_config.lm from problem.json. Absent or null gives the
// zero ProblemLM; anything but an object or a non-empty string is a
// *ProblemError wrapping ErrBadProblemJSON.
func (p *Problem) LM() (ProblemLM, error) {
	var pf struct {
		RuntimeConfig struct {
			LM json.RawMessage `json:"lm"`
		} `json:"runtime_config"`
	}
	path := filepath.Join(p.Dir, "problem.json")
	bad := func(format string, a ...any) error {
		return &ProblemError{Path: path, Field: "runtime_config.lm",
			Err: fmt.Errorf("%w: "+format, append([]any{ErrBadProblemJSON}, a...)...)}
	}
	if err := json.Unmarshal(p.Raw, &pf); err != nil {
		return ProblemLM{}, bad("%v", err)
	}
	raw := pf.RuntimeConfig.LM
	if len(raw) == 0 || string(raw) == "null" {
		return ProblemLM{}, nil
	}
	switch raw[0] {
	case '{':
		return ProblemLM{Inline: raw}, nil
	case '"':
		var rel string
		if err := json.Unmarshal(raw, &rel); err != nil || rel == "" {
			return ProblemLM{}, bad("want a configuration object or a non-empty file path")
		}
		// The judge reads the file itself: it must be the problem's own.
		if !filepath.IsLocal(rel) {
			return ProblemLM{}, bad("%q is not a path inside the problem folder (give a relative path such as \"lm.json\", without \"..\")", rel)
		}
		return ProblemLM{Path: filepath.Clean(rel)}, nil
	}
	return ProblemLM{}, bad("want a configuration object or a file path, got %.40s", raw)
}

// ReadLMConfig reads the file l.Path names, inside p's folder: a name or
// link leading out of the folder, a file that is not a regular one (a FIFO
// is not waited on) and one over MaxLMConfigBytes are refused, with a
// *ProblemError on runtime_config.lm that never quotes the file.
func (p *Problem) ReadLMConfig(l ProblemLM) ([]byte, error) {
	fail := func(err error) error {
		return &ProblemError{Path: filepath.Join(p.Dir, "problem.json"), Field: "runtime_config.lm",
			Err: fmt.Errorf("%w: %w", ErrBadProblemJSON, err)}
	}
	root, err := os.OpenRoot(p.Dir)
	if err != nil {
		return nil, fail(err)
	}
	defer root.Close()
	data, err := rootfile.Read(root, l.Path, MaxLMConfigBytes)
	if err != nil {
		return nil, fail(fmt.Errorf("%q must be a regular file inside the problem folder (links may not lead out), of at most %d MiB: %w",
			l.Path, MaxLMConfigBytes>>20, err))
	}
	return data, nil
}

// lmRun is the LM side of a run: the private socket directory and the
// handler. Owned by the run's goroutine.
type lmRun struct {
	dir     string
	addr    string // "unix:PATH"; "" when the run has no handler
	handler LMHandler
}

// startLM starts the run's LM handler when Options.LM is set; a problem that
// declares runtime_config.lm without one is ErrNoLMHandler.
func (r *run) startLM(ctx context.Context) error {
	declared, err := r.problem.LM()
	if err != nil {
		return err
	}
	if r.opts.LM == nil {
		if declared.Declared() {
			return ErrNoLMHandler
		}
		return nil
	}
	dir, err := os.MkdirTemp("", "tether-lm-*")
	if err != nil {
		return fmt.Errorf("lm socket dir: %w", err)
	}
	r.lm.dir = dir
	socket := filepath.Join(dir, lmSocketName)
	var observe func(LMRequest)
	if r.wants(EventLM) {
		observe = func(req LMRequest) {
			r.emitNow(func(ev *Event) { ev.Kind, ev.Side, ev.LM = EventLM, dual.Evaluator, &req })
		}
	}
	h, err := r.opts.LM(ctx, r.problem, socket, observe)
	if err != nil {
		return fmt.Errorf("start lm handler: %w", err)
	}
	if h == nil {
		return nil
	}
	r.lm.handler = h
	// The evaluator runs as another, unprivileged uid: it may pass through
	// the directory (not list it) and connect to the socket (which needs
	// write permission on the socket file).
	if err := os.Chmod(socket, 0o777); err != nil {
		return fmt.Errorf("lm socket: %w", err)
	}
	if err := os.Chmod(dir, 0o711); err != nil {
		return fmt.Errorf("lm socket dir: %w", err)
	}
	r.lm.addr = "unix:" + socket
	return nil
}

// withLM makes the handler reachable from the evaluator's sandbox: its
// directory bound (so no network is needed) and its address in the
// environment. The solution never gets either.
func (r *run) withLM(spec sandbox.Spec) sandbox.Spec {
	if r.lm.addr == "" {
		return spec
	}
	spec.Binds = append(spec.Binds, sandbox.Bind{Path: r.lm.dir})
	spec.Env = append(spec.Env, LMAddrEnv+"="+r.lm.addr)
	return spec
}

// stopLM records the handler's usage and closes it; called once both sides
// have stopped, on every exit path of the run.
func (r *run) stopLM() {
	if h := r.lm.handler; h != nil {
		r.lm.handler = nil
		usage, err := h.UsageJSON()
		closeErr := h.Close()
		r.mu.Lock()
		if err == nil {
			r.lmUsage = usage
		}
		r.mu.Unlock()
		if err = errors.Join(err, closeErr); err != nil {
			r.fail("lm handler: " + err.Error())
		}
	}
	if r.lm.dir != "" {
		os.RemoveAll(r.lm.dir)
		r.lm.dir = ""
	}
}
