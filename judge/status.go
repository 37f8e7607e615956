package judge

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Status is a verdict. It is a closed enum, not an error.
type Status int

// The statuses of docs/protocol/judge.md. The zero value is not a valid status, so a
// result whose status was never set is caught.
const (
	Accepted Status = iota + 1
	WrongAnswer
	PartiallyCorrect
	RuntimeError
	TimeLimitExceeded
	MemoryLimitExceeded
	SystemError
	// CompileError: the evaluator could not build the submission (Neuro
	// OJ's evaluators report it; the judge never decides it itself).
	CompileError
	lastStatus = CompileError
)

var statusNames = [...]string{
	Accepted:            "Accepted",
	WrongAnswer:         "WrongAnswer",
	PartiallyCorrect:    "PartiallyCorrect",
	RuntimeError:        "RuntimeError",
	TimeLimitExceeded:   "TimeLimitExceeded",
	MemoryLimitExceeded: "MemoryLimitExceeded",
	SystemError:         "SystemError",
	CompileError:        "CompileError",
}

// ErrUnknownStatus: a status string outside the enum.
var ErrUnknownStatus = errors.New("unknown status")

func (s Status) String() string {
	if s >= Accepted && s <= lastStatus {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// ParseStatus maps the wire name to a Status; anything else is ErrUnknownStatus.
func ParseStatus(name string) (Status, error) {
	for s := Accepted; s <= lastStatus; s++ {
		if statusNames[s] == name {
			return s, nil
		}
	}
	return 0, fmt.Errorf("%w %q", ErrUnknownStatus, name)
}

func (s Status) MarshalJSON() ([]byte, error) {
	if s < Accepted || s > lastStatus {
		return nil, fmt.Errorf("judge: cannot encode %v", s)
	}
	return json.Marshal(s.String())
}

func (s *Status) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return err
	}
	v, err := ParseStatus(name)
	if err != nil {
		return err
	}
	*s = v
	return nil
}
