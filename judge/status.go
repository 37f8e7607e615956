package judge

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Status is a verdict: one of tether's (the constants below), or any other
// status an evaluator reported that is a plain identifier (EvaluatorStatus),
// passed through as Neuro OJ's judge does. Only Accepted is accepted: a
// status of an evaluator's own, such as "PartiallyAccepted", is not.
type Status string

// The statuses of docs/protocol/judge.md. The zero value "" is not a valid
// status, so a result whose status was never set is caught.
const (
	Accepted            Status = "Accepted"
	WrongAnswer         Status = "WrongAnswer"
	PartiallyCorrect    Status = "PartiallyCorrect"
	RuntimeError        Status = "RuntimeError"
	TimeLimitExceeded   Status = "TimeLimitExceeded"
	MemoryLimitExceeded Status = "MemoryLimitExceeded"
	SystemError         Status = "SystemError"
	// CompileError: the evaluator could not build the submission (Neuro
	// OJ's evaluators report it; the judge decides it itself for a
	// submission in a language it builds).
	CompileError Status = "CompileError"
)

// Statuses are tether's own verdicts, in the order docs/result.md lists them.
var Statuses = []Status{Accepted, WrongAnswer, PartiallyCorrect, RuntimeError, TimeLimitExceeded,
	MemoryLimitExceeded, SystemError, CompileError}

// MaxStatusLen is the longest status of an evaluator's own that is passed
// through.
const MaxStatusLen = 64

// StatusPattern is what a status of an evaluator's own must match: a plain
// identifier of ASCII letters and digits, starting with a letter, at most
// MaxStatusLen long (schemas/result.schema.json says the same).
const StatusPattern = "^[A-Za-z][A-Za-z0-9]{0,63}$"

// ErrUnknownStatus: a status string that is neither tether's nor a plain
// identifier (or, for ParseStatus, not tether's).
var ErrUnknownStatus = errors.New("unknown status")

func (s Status) String() string { return string(s) }

// Known reports whether s is one of tether's own verdicts (Statuses).
func (s Status) Known() bool {
	for _, k := range Statuses {
		if s == k {
			return true
		}
	}
	return false
}

// valid: tether's, or a plain identifier.
func (s Status) valid() bool {
	if len(s) == 0 || len(s) > MaxStatusLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// ParseStatus maps a wire name to one of tether's statuses; anything else
// is ErrUnknownStatus.
func ParseStatus(name string) (Status, error) {
	if s := Status(name); s.Known() {
		return s, nil
	}
	return "", fmt.Errorf("%w %q", ErrUnknownStatus, name)
}

// EvaluatorStatus maps the status an evaluator reported: one of tether's, or
// any plain identifier (StatusPattern), kept as it is. Anything else
// (spaces, punctuation, over MaxStatusLen) is ErrUnknownStatus.
func EvaluatorStatus(name string) (Status, error) {
	if s := Status(name); s.valid() {
		return s, nil
	}
	shown := name
	if len(shown) > MaxStatusLen {
		shown = shown[:MaxStatusLen] + "…"
	}
	return "", fmt.Errorf("%w %q: want one of tether's verdicts or a name of letters and digits, starting with a letter, at most %d long", ErrUnknownStatus, shown, MaxStatusLen)
}

func (s Status) MarshalJSON() ([]byte, error) {
	if !s.valid() {
		return nil, fmt.Errorf("judge: cannot encode status %q", string(s))
	}
	return json.Marshal(string(s))
}

func (s *Status) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return err
	}
	v, err := EvaluatorStatus(name)
	if err != nil {
		return err
	}
	*s = v
	return nil
}
