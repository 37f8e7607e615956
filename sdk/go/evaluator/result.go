package evaluator

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/tether-dev/tether/codec"
)

// Accept writes an Accepted result; score is in points (100.0 = full) and
// is sent as round(score*100). The result can be written once per run;
// later calls return ErrResultDone.
func (r *Runner) Accept(score float64, details map[string]any) error {
	return r.writeResult("Accepted", score, details)
}

// WrongAnswer writes a WrongAnswer result.
func (r *Runner) WrongAnswer(score float64, details map[string]any) error {
	return r.writeResult("WrongAnswer", score, details)
}

// PartiallyCorrect writes a PartiallyCorrect result.
func (r *Runner) PartiallyCorrect(score float64, details map[string]any) error {
	return r.writeResult("PartiallyCorrect", score, details)
}

// RuntimeError writes a RuntimeError result with details {"message": message}.
func (r *Runner) RuntimeError(message string) error {
	return r.writeResult("RuntimeError", 0, map[string]any{"message": message})
}

// SystemError writes a SystemError result with details {"message": message}.
func (r *Runner) SystemError(message string) error {
	return r.writeResult("SystemError", 0, map[string]any{"message": message})
}

// TimeLimitExceeded writes a TimeLimitExceeded result with details
// {"message": message}: the everyday answer to a call that failed with
// ErrCallTimeout (Python: result.time_limit_exceeded).
func (r *Runner) TimeLimitExceeded(message string) error {
	return r.writeResult("TimeLimitExceeded", 0, map[string]any{"message": message})
}

func (r *Runner) writeResult(status string, score float64, details map[string]any) error {
	if math.IsNaN(score) || math.IsInf(score, 0) {
		return fmt.Errorf("evaluator: result score %v: %w", score, ErrRejected)
	}
	if details == nil {
		details = map[string]any{}
	}
	payload, err := json.Marshal(struct {
		Status  string         `json:"status"`
		Score   int64          `json:"score"`
		Details map[string]any `json:"details"`
	}{status, int64(math.RoundToEven(score * 100)), details})
	if err != nil {
		return fmt.Errorf("evaluator: result details: %w: %w", ErrRejected, err)
	}
	r.resultMu.Lock()
	defer r.resultMu.Unlock()
	if r.resultDone {
		return ErrResultDone
	}
	r.resultDone = true
	// Through the peer's writer, so the marker cannot land inside a frame,
	// and together, so no line printed meanwhile can pass for the payload.
	marker := codec.ResultMarker
	if r.opts.ResultNonce != "" {
		marker = codec.SignedResultMarker(r.opts.ResultNonce)
	}
	if err := r.p.SendLines([]byte(marker), payload); err != nil {
		return fmt.Errorf("evaluator: write result: %w", err)
	}
	// The evaluator usually exits right after: the result must be out.
	if err := r.p.Flush(); err != nil {
		return fmt.Errorf("evaluator: write result: %w", err)
	}
	return nil
}
