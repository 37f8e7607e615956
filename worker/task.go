// Package worker judges a queue of submissions: slots that each judge one
// task at a time with package judge, taken before a task is pulled; a
// drain on shutdown that gives back what is unfinished; metrics. The queue
// itself is a Broker (worker/redisq: Neuro OJ's Redis lists; worker/natsq:
// NATS JetStream). docs/worker.md describes the task and result shapes.
package worker

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tether-dev/tether/lang"
)

// Task is a queued submission in Neuro OJ's format. Unknown fields are
// ignored. language says how the code is built and run (package lang);
// file_name comes from the submitter unchecked, so it is used only to tell
// a language by its extension when language is empty, and only when it is
// a plain file name: the source is always saved under its language's own
// name.
type Task struct {
	SubmissionID  string          `json:"submission_id"`
	ProblemID     json.RawMessage `json:"problem_id"` // a string or a number
	RuntimeConfig RuntimeConfig   `json:"runtime_config"`
	Language      string          `json:"language"`
	Code          string          `json:"code"`
	DownloadURL   string          `json:"download_url,omitempty"` // "" means no package
	FileName      string          `json:"file_name,omitempty"`
	RejudgeSeq    *int64          `json:"rejudge_seq,omitempty"`
}

// RuntimeConfig is a task's runtime_config. Raw keeps it whole: the judge
// reads its limits (and any field tether knows beyond Neuro OJ's) from it.
type RuntimeConfig struct {
	Evaluator struct {
		Image string `json:"image"`
	} `json:"evaluator"`
	Solution struct {
		Image string `json:"image"`
	} `json:"solution"`
	Raw json.RawMessage `json:"-"`
}

func (rc *RuntimeConfig) UnmarshalJSON(b []byte) error {
	type plain RuntimeConfig
	if err := json.Unmarshal(b, (*plain)(rc)); err != nil {
		return err
	}
	rc.Raw = append(json.RawMessage(nil), b...)
	return nil
}

func (rc RuntimeConfig) MarshalJSON() ([]byte, error) {
	if len(rc.Raw) > 0 {
		return rc.Raw, nil
	}
	type plain RuntimeConfig
	return json.Marshal(plain(rc))
}

// ErrBadTask: a task that does not parse or lacks a required field. It
// goes to the dead-letter list, not to a result.
var ErrBadTask = errors.New("bad task")

// requiredFields are the members a task must have (Neuro OJ's worker
// rejects a task without them), as JSON paths.
var requiredFields = [][]string{
	{"submission_id"}, {"problem_id"}, {"language"}, {"code"},
	{"runtime_config", "evaluator", "image"}, {"runtime_config", "evaluator", "command"},
	{"runtime_config", "evaluator", "time_limit_ms"}, {"runtime_config", "evaluator", "memory_limit_mb"},
	{"runtime_config", "solution", "image"}, {"runtime_config", "solution", "call_timeout_ms"},
	{"runtime_config", "solution", "memory_limit_mb"},
}

// solutionName is file_name when it is a plain file name, else "".
func (t *Task) solutionName() string {
	if lang.PlainFileName(t.FileName) {
		return t.FileName
	}
	return ""
}

// ParseTask decodes raw; errors wrap ErrBadTask and name the field.
func ParseTask(raw []byte) (*Task, error) {
	var tree map[string]any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, fmt.Errorf("%w: not a JSON object: %v", ErrBadTask, err)
	}
	for _, path := range requiredFields {
		var node any = tree
		for _, key := range path {
			m, ok := node.(map[string]any)
			if !ok {
				node = nil
				break
			}
			node = m[key]
		}
		if node == nil {
			return nil, fmt.Errorf("%w: %s is missing", ErrBadTask, strings.Join(path, "."))
		}
	}
	var t Task
	if err := json.Unmarshal(raw, &t); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return nil, fmt.Errorf("%w: %s: want %s, got %s", ErrBadTask, typeErr.Field, typeErr.Type.Kind(), typeErr.Value)
		}
		return nil, fmt.Errorf("%w: %v", ErrBadTask, err)
	}
	if t.SubmissionID == "" {
		return nil, fmt.Errorf("%w: submission_id is empty", ErrBadTask)
	}
	return &t, nil
}

// Seq is the task's rejudge_seq, 0 when absent.
func (t *Task) Seq() int64 {
	if t.RejudgeSeq == nil {
		return 0
	}
	return *t.RejudgeSeq
}

// Result is what a worker pushes for a task: Neuro OJ's fields and no
// others. Score is in hundredths (100.00 points is 10000).
type Result struct {
	SubmissionID string          `json:"submission_id"`
	Status       string          `json:"status"`
	Score        int64           `json:"score"`
	Output       string          `json:"output"`
	Details      json.RawMessage `json:"details"` // null when absent
	TimeMs       int64           `json:"time_ms"`
	MemoryKB     int64           `json:"memory_kb"`
	RejudgeSeq   *int64          `json:"rejudge_seq,omitempty"`
}

// MaxOutput is how much of the evaluator's output a result keeps: the last
// 1 MiB, cut on a character boundary.
const MaxOutput = 1 << 20

// systemError is the result of a task the judge could not run; message
// names the cause.
func systemError(t *Task, message string) *Result {
	d, _ := json.Marshal(map[string]string{"message": message})
	return &Result{SubmissionID: t.SubmissionID, Status: "SystemError", Output: message, Details: d, RejudgeSeq: t.RejudgeSeq}
}

// tailUTF8 keeps the last max bytes of s, starting on a character.
func tailUTF8(s string, max int) string {
	if len(s) <= max {
		return s
	}
	s = s[len(s)-max:]
	for i := 0; i < 3 && len(s) > 0 && s[0]&0xC0 == 0x80; i++ {
		s = s[1:]
	}
	return s
}
