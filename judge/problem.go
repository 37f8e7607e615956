package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/shlex"
	"github.com/tether-dev/tether/internal/jsonwords"
	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sig"
)

// Defaults of runtime_config (docs/problem.md).
const (
	DefaultEvaluatorTimeLimitMs = 30000
	DefaultCallTimeoutMs        = 5000
	DefaultReadyTimeoutMs       = 10000
	// DefaultMemoryLimitMB caps each side when the problem names no limit
	// (docs/problem.md: 256 MiB a side unless problem.json says otherwise).
	DefaultMemoryLimitMB  = 256
	OnCallTimeoutRestart  = "restart"
	OnCallTimeoutContinue = "continue"
)

// DefaultEvaluatorCommand runs when runtime_config.evaluator.command is absent.
var DefaultEvaluatorCommand = []string{"python3", "evaluate.py"}

// DefaultAllowedCommands is the allow-list of an evaluator command's first word.
var DefaultAllowedCommands = []string{"python3", "deno", "node", "bash", "sh"}

// Problem is a loaded problem folder. Raw keeps problem.json as read, so
// fields tether does not know are preserved for whoever needs them.
type Problem struct {
	Dir     string // absolute path of the folder
	Title   string
	Runtime RuntimeConfig
	Raw     json.RawMessage
	// Functions are the declared functions (problem.json "functions" and
	// "types"); nil when the problem declares none.
	Functions *sig.Declaration
}

// RuntimeConfig is problem.json's runtime_config after defaults are applied.
type RuntimeConfig struct {
	Evaluator EvaluatorConfig
	Solution  SolutionConfig
}

// EvaluatorConfig is runtime_config.evaluator.
type EvaluatorConfig struct {
	Command       []string // argv, run in the problem folder
	TimeLimitMs   int64
	MemoryLimitMB int64 // 0 = no limit
	Network       bool
	Processes     ProcessLimits
}

// SolutionConfig is runtime_config.solution.
type SolutionConfig struct {
	Command        []string // nil = the Python host
	CallTimeoutMs  int64
	MemoryLimitMB  int64
	OnCallTimeout  string // OnCallTimeoutRestart or OnCallTimeoutContinue
	ReadyTimeoutMs int64
	// CPUTimeLimitMs caps the CPU time of the whole run (all processes,
	// summed over restarts); default evaluator.time_limit_ms +
	// DefaultSolutionCPUAllowanceMs (see limits.go).
	CPUTimeLimitMs int64
	Processes      ProcessLimits
	// Languages are the languages the problem accepts (ids or aliases);
	// empty accepts every language of the judge's table.
	Languages []string
	// Compile overrides the compile step's limits (lang.CompileLimits;
	// zero fields keep the language's or the defaults).
	Compile lang.CompileLimits
}

// Sentinels of problem and submission loading; the errors returned wrap them
// in a *ProblemError naming the file and field.
var (
	ErrNoProblemJSON     = errors.New("problem.json not found")
	ErrBadProblemJSON    = errors.New("problem.json is not valid")
	ErrNoEvaluator       = errors.New("evaluator file not found")
	ErrCommandNotAllowed = errors.New("evaluator command not on the allow-list")
	ErrSolutionFile      = errors.New("solution file unreadable")
)

// ProblemError says which file (and field) of a problem or submission is wrong.
type ProblemError struct {
	Path  string // file
	Field string // JSON path inside it, "" for the whole file
	Err   error  // one of the sentinels above, possibly wrapping the cause
}

func (e *ProblemError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("judge: %s: %s: %v", e.Path, e.Field, e.Err)
	}
	return fmt.Sprintf("judge: %s: %v", e.Path, e.Err)
}

func (e *ProblemError) Unwrap() error { return e.Err }

// problemFile mirrors problem.json; fields are pointers or raw so that
// "missing" and "zero" can be told apart.
type problemFile struct {
	Title         string          `json:"title"`
	Functions     json.RawMessage `json:"functions"`
	Types         json.RawMessage `json:"types"`
	RuntimeConfig struct {
		Evaluator struct {
			Command       json.RawMessage `json:"command"`
			TimeLimitMs   *int64          `json:"time_limit_ms"`
			MemoryLimitMB *int64          `json:"memory_limit_mb"`
			Network       struct {
				Enabled bool `json:"enabled"`
			} `json:"network"`
			processLimitsFile
		} `json:"evaluator"`
		Solution struct {
			Command        json.RawMessage     `json:"command"`
			CallTimeoutMs  *int64              `json:"call_timeout_ms"`
			MemoryLimitMB  *int64              `json:"memory_limit_mb"`
			OnCallTimeout  *string             `json:"on_call_timeout"`
			ReadyTimeoutMs *int64              `json:"ready_timeout_ms"`
			CPUTimeLimitMs *int64              `json:"cpu_time_limit_ms"`
			Languages      []string            `json:"languages"`
			Compile        *lang.CompileLimits `json:"compile"`
			processLimitsFile
		} `json:"solution"`
	} `json:"runtime_config"`
}

// LoadProblem reads dir/problem.json, applies the defaults of docs/problem.md and
// checks the evaluator command's first word against allowed (nil means
// DefaultAllowedCommands). Unknown fields are ignored and kept in Raw.
func LoadProblem(dir string, allowed []string) (*Problem, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, &ProblemError{Path: dir, Err: fmt.Errorf("%w: %v", ErrNoProblemJSON, err)}
	}
	path := filepath.Join(abs, "problem.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, &ProblemError{Path: path, Err: fmt.Errorf("%w: %v", ErrNoProblemJSON, err)}
	}
	return ParseProblem(abs, path, raw, allowed)
}

// ParseProblem is LoadProblem for a problem.json held in memory: raw is
// its text, dir the (absolute) problem folder and source what errors call
// the JSON (a path, or e.g. "task" for a queued task's runtime_config).
func ParseProblem(dir, source string, raw []byte, allowed []string) (*Problem, error) {
	abs, path := dir, source
	var err error
	var pf problemFile
	if err := json.Unmarshal(raw, &pf); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return nil, &ProblemError{Path: path, Field: typeErr.Field,
				Err: fmt.Errorf("%w: %s", ErrBadProblemJSON, jsonwords.WantGot(typeErr))}
		}
		return nil, &ProblemError{Path: path, Err: fmt.Errorf("%w: %v", ErrBadProblemJSON, err)}
	}
	bad := func(field string, format string, a ...any) error {
		return &ProblemError{Path: path, Field: field, Err: fmt.Errorf("%w: "+format, append([]any{ErrBadProblemJSON}, a...)...)}
	}
	ev, so := pf.RuntimeConfig.Evaluator, pf.RuntimeConfig.Solution
	p := &Problem{Dir: abs, Title: pf.Title, Raw: raw}
	rc := &p.Runtime

	if rc.Evaluator.Command, err = parseCommand(ev.Command); err != nil {
		return nil, bad("runtime_config.evaluator.command", "%v", err)
	}
	if rc.Evaluator.Command == nil {
		rc.Evaluator.Command = append([]string(nil), DefaultEvaluatorCommand...)
	}
	if !commandAllowed(rc.Evaluator.Command[0], allowed) {
		return nil, &ProblemError{Path: path, Field: "runtime_config.evaluator.command",
			Err: fmt.Errorf("%w: %q (allowed: %s)", ErrCommandNotAllowed, rc.Evaluator.Command[0], strings.Join(allowedOrDefault(allowed), ", "))}
	}
	if rc.Solution.Command, err = parseCommand(so.Command); err != nil {
		return nil, bad("runtime_config.solution.command", "%v", err)
	}
	for _, f := range []struct {
		name string
		src  *int64
		dst  *int64
		def  int64
	}{
		{"runtime_config.evaluator.time_limit_ms", ev.TimeLimitMs, &rc.Evaluator.TimeLimitMs, DefaultEvaluatorTimeLimitMs},
		{"runtime_config.evaluator.memory_limit_mb", ev.MemoryLimitMB, &rc.Evaluator.MemoryLimitMB, DefaultMemoryLimitMB},
		{"runtime_config.solution.call_timeout_ms", so.CallTimeoutMs, &rc.Solution.CallTimeoutMs, DefaultCallTimeoutMs},
		{"runtime_config.solution.memory_limit_mb", so.MemoryLimitMB, &rc.Solution.MemoryLimitMB, DefaultMemoryLimitMB},
		{"runtime_config.solution.ready_timeout_ms", so.ReadyTimeoutMs, &rc.Solution.ReadyTimeoutMs, DefaultReadyTimeoutMs},
		{"runtime_config.solution.cpu_time_limit_ms", so.CPUTimeLimitMs, &rc.Solution.CPUTimeLimitMs, 0},
		{"runtime_config.evaluator.pids_limit", ev.PidsLimit, &rc.Evaluator.Processes.Pids, DefaultPidsLimit},
		{"runtime_config.evaluator.file_size_limit_mb", ev.FileSizeLimitMB, &rc.Evaluator.Processes.FileSizeMB, DefaultFileSizeLimitMB},
		{"runtime_config.evaluator.open_files_limit", ev.OpenFilesLimit, &rc.Evaluator.Processes.OpenFiles, DefaultOpenFilesLimit},
		{"runtime_config.solution.pids_limit", so.PidsLimit, &rc.Solution.Processes.Pids, DefaultPidsLimit},
		{"runtime_config.solution.file_size_limit_mb", so.FileSizeLimitMB, &rc.Solution.Processes.FileSizeMB, DefaultFileSizeLimitMB},
		{"runtime_config.solution.open_files_limit", so.OpenFilesLimit, &rc.Solution.Processes.OpenFiles, DefaultOpenFilesLimit},
	} {
		switch {
		case f.src == nil || *f.src == 0:
			*f.dst = f.def
		case *f.src < 0:
			return nil, bad(f.name, "must not be negative, got %d", *f.src)
		default:
			*f.dst = *f.src
		}
	}
	if rc.Solution.CPUTimeLimitMs == 0 {
		rc.Solution.CPUTimeLimitMs = defaultSolutionCPUTimeMs(rc.Evaluator.TimeLimitMs)
	}
	rc.Solution.Languages = so.Languages
	if so.Compile != nil {
		if err := so.Compile.Check("runtime_config.solution.compile"); err != nil {
			return nil, &ProblemError{Path: path, Err: fmt.Errorf("%w: %v", ErrBadProblemJSON, err)}
		}
		rc.Solution.Compile = *so.Compile
	}
	rc.Evaluator.Network = ev.Network.Enabled
	rc.Solution.OnCallTimeout = OnCallTimeoutRestart
	if so.OnCallTimeout != nil {
		switch *so.OnCallTimeout {
		case OnCallTimeoutRestart, OnCallTimeoutContinue:
			rc.Solution.OnCallTimeout = *so.OnCallTimeout
		default:
			return nil, bad("runtime_config.solution.on_call_timeout", "%q is neither %q nor %q",
				*so.OnCallTimeout, OnCallTimeoutRestart, OnCallTimeoutContinue)
		}
	}
	if p.Functions, err = sig.Parse(pf.Functions, pf.Types); err != nil {
		return nil, functionsError(path, err)
	}
	if ev.Command == nil {
		// The default command needs evaluate.py; a custom one names its own files.
		if _, err := os.Stat(filepath.Join(abs, "evaluate.py")); err != nil {
			return nil, &ProblemError{Path: filepath.Join(abs, "evaluate.py"), Err: fmt.Errorf("%w: %v", ErrNoEvaluator, err)}
		}
	}
	return p, nil
}

// LoadFunctions reads the declared functions of the problem folder dir
// (problem.json "functions" and "types"), for a problem whose limits come
// from elsewhere (tether worker: a task's runtime_config beside a support
// package). No problem.json, or none declared: nil, nil.
func LoadFunctions(dir string) (*sig.Declaration, error) {
	path := filepath.Join(dir, "problem.json")
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &ProblemError{Path: path, Err: fmt.Errorf("%w: %v", ErrBadProblemJSON, err)}
	}
	var pf struct {
		Functions json.RawMessage `json:"functions"`
		Types     json.RawMessage `json:"types"`
	}
	if err := json.Unmarshal(raw, &pf); err != nil {
		return nil, &ProblemError{Path: path, Err: fmt.Errorf("%w: %v", ErrBadProblemJSON, err)}
	}
	d, err := sig.Parse(pf.Functions, pf.Types)
	if err != nil {
		return nil, functionsError(path, err)
	}
	return d, nil
}

// functionsError is a *ProblemError naming the field of a declaration
// sig.Parse refused.
func functionsError(path string, err error) error {
	field := "functions"
	var fe *sig.FieldError
	if errors.As(err, &fe) {
		field, err = fe.Field, fe.Err
	}
	return &ProblemError{Path: path, Field: field, Err: fmt.Errorf("%w: %v", ErrBadProblemJSON, err)}
}

// parseCommand accepts a command line string, split into words as a POSIX
// shell would (quotes, backslashes and # comments; no expansion), or an
// array of strings. Missing or null gives nil.
func parseCommand(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var line string
	if err := json.Unmarshal(raw, &line); err == nil {
		argv, err := shlex.Split(line)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", line, err)
		}
		if len(argv) == 0 {
			return nil, errors.New("empty command")
		}
		return argv, nil
	}
	var argv []string
	if err := json.Unmarshal(raw, &argv); err != nil {
		return nil, errors.New("want a string or an array of strings")
	}
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("empty command")
	}
	return argv, nil
}

func allowedOrDefault(allowed []string) []string {
	if allowed == nil {
		return DefaultAllowedCommands
	}
	return allowed
}

func commandAllowed(first string, allowed []string) bool {
	for _, a := range allowedOrDefault(allowed) {
		if first == a {
			return true
		}
	}
	return false
}

// Submission is a solution file read into memory.
type Submission struct {
	Path string // as given; its extension tells the language when Language is ""
	Code []byte
	// Language is the submission's language as its submitter named it (an
	// id or alias of package lang's table); "" means by Path's extension.
	Language string
}

// LoadSubmission reads the solution file.
func LoadSubmission(path string) (*Submission, error) {
	code, err := os.ReadFile(path)
	if err != nil {
		return nil, &ProblemError{Path: path, Err: fmt.Errorf("%w: %v", ErrSolutionFile, err)}
	}
	fi, err := os.Stat(path)
	if err == nil && fi.IsDir() {
		return nil, &ProblemError{Path: path, Err: fmt.Errorf("%w: is a directory", ErrSolutionFile)}
	}
	return &Submission{Path: path, Code: code}, nil
}
