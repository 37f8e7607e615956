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

// DefaultMaxTaskBytes is the largest task a worker reads by default
// (Config.MaxTaskBytes): Neuro OJ's tasks carry the code and point to
// their package, so they are small; Redis would allow 512 MiB.
const DefaultMaxTaskBytes = 64 << 20

// taskWire is a task as it arrives: the members Neuro OJ's worker requires
// are pointers or raw, so that one decode tells a missing (or null) member
// from an empty one.
type taskWire struct {
	SubmissionID  *string         `json:"submission_id"`
	ProblemID     json.RawMessage `json:"problem_id"`
	Language      *string         `json:"language"`
	Code          *string         `json:"code"`
	RuntimeConfig json.RawMessage `json:"runtime_config"`
	DownloadURL   string          `json:"download_url"`
	FileName      string          `json:"file_name"`
	RejudgeSeq    *int64          `json:"rejudge_seq"`
}

// solutionName is file_name when it is a plain file name, else "".
func (t *Task) solutionName() string {
	if lang.PlainFileName(t.FileName) {
		return t.FileName
	}
	return ""
}

type runtimeWire struct {
	Evaluator *struct {
		Image         *string         `json:"image"`
		Command       json.RawMessage `json:"command"`
		TimeLimitMs   json.RawMessage `json:"time_limit_ms"`
		MemoryLimitMb json.RawMessage `json:"memory_limit_mb"`
	} `json:"evaluator"`
	Solution *struct {
		Image         *string         `json:"image"`
		CallTimeoutMs json.RawMessage `json:"call_timeout_ms"`
		MemoryLimitMb json.RawMessage `json:"memory_limit_mb"`
	} `json:"solution"`
}

func present(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// ParseTask decodes raw once (the code is its one large member); errors
// wrap ErrBadTask and name the field. A task without a member Neuro OJ's
// worker requires is refused like there.
func ParseTask(raw []byte) (*Task, error) {
	var w taskWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, badTaskJSON("", err)
	}
	var rc runtimeWire
	if present(w.RuntimeConfig) {
		if err := json.Unmarshal(w.RuntimeConfig, &rc); err != nil {
			return nil, badTaskJSON("runtime_config.", err)
		}
	}
	ev, sol := rc.Evaluator, rc.Solution
	for _, f := range []struct {
		name string
		ok   bool
	}{
		{"submission_id", w.SubmissionID != nil}, {"problem_id", present(w.ProblemID)},
		{"language", w.Language != nil}, {"code", w.Code != nil},
		{"runtime_config.evaluator.image", ev != nil && ev.Image != nil},
		{"runtime_config.evaluator.command", ev != nil && present(ev.Command)},
		{"runtime_config.evaluator.time_limit_ms", ev != nil && present(ev.TimeLimitMs)},
		{"runtime_config.evaluator.memory_limit_mb", ev != nil && present(ev.MemoryLimitMb)},
		{"runtime_config.solution.image", sol != nil && sol.Image != nil},
		{"runtime_config.solution.call_timeout_ms", sol != nil && present(sol.CallTimeoutMs)},
		{"runtime_config.solution.memory_limit_mb", sol != nil && present(sol.MemoryLimitMb)},
	} {
		if !f.ok {
			return nil, fmt.Errorf("%w: %s is missing", ErrBadTask, f.name)
		}
	}
	if *w.SubmissionID == "" {
		return nil, fmt.Errorf("%w: submission_id is empty", ErrBadTask)
	}
	t := &Task{SubmissionID: *w.SubmissionID, ProblemID: w.ProblemID, Language: *w.Language, Code: *w.Code,
		DownloadURL: w.DownloadURL, FileName: w.FileName, RejudgeSeq: w.RejudgeSeq}
	t.RuntimeConfig.Evaluator.Image, t.RuntimeConfig.Solution.Image = *ev.Image, *sol.Image
	t.RuntimeConfig.Raw = w.RuntimeConfig
	return t, nil
}

// badTaskJSON names the member of a decoding error, under prefix.
func badTaskJSON(prefix string, err error) error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		if typeErr.Field == "" {
			if prefix == "" {
				return fmt.Errorf("%w: not a JSON object: %v", ErrBadTask, err)
			}
			return fmt.Errorf("%w: %s: want an object, got %s", ErrBadTask, strings.TrimSuffix(prefix, "."), typeErr.Value)
		}
		return fmt.Errorf("%w: %s%s: want %s, got %s", ErrBadTask, prefix, typeErr.Field, typeErr.Type.Kind(), typeErr.Value)
	}
	return fmt.Errorf("%w: not a JSON object: %v", ErrBadTask, err)
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

// ResultSubmissionID is the submission_id of a result as received from a
// queue; ok is false when it does not parse or has none. A waiter takes a
// result only when this is the id it waits for.
func ResultSubmissionID(raw []byte) (id string, ok bool) {
	var r struct {
		SubmissionID *string `json:"submission_id"`
	}
	if json.Unmarshal(raw, &r) != nil || r.SubmissionID == nil {
		return "", false
	}
	return *r.SubmissionID, true
}
