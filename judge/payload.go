package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// MaxScore is the full score: 100.00 points in hundredths. An evaluator's
// score above it (or below zero) is kept as given, as Neuro OJ's judge
// passes it on, and flagged by ScoreNote.
const MaxScore = 10000

// maxExactScore bounds a score to the integers JSON readers hold exactly
// (2^53): a larger one is kept at that bound.
const maxExactScore = 1 << 53

// ErrBadPayload: the line after the marker is not a valid result object.
var ErrBadPayload = errors.New("unparsable result payload")

// Payload is the evaluator's own result line.
type Payload struct {
	Status  Status
	Score   int64 // rounded, kept as given within ±2^53
	Details json.RawMessage
}

// ParsePayload decodes `{"status": S, "score": N, "details": {...}}`. The
// status is one of tether's or any plain identifier (EvaluatorStatus); the
// score may be any JSON number: a fraction is rounded (Neuro OJ's judge
// takes a fraction as 0; docs/worker.md), and it is not clamped to the full
// score (only to ±2^53); details, if present, must be an object. Errors
// wrap ErrBadPayload.
func ParsePayload(line []byte) (Payload, error) {
	var raw struct {
		Status  *string         `json:"status"`
		Score   json.RawMessage `json:"score"`
		Details json.RawMessage `json:"details"`
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&raw); err != nil {
		return Payload{}, fmt.Errorf("%w: %v", ErrBadPayload, err)
	}
	if dec.More() {
		return Payload{}, fmt.Errorf("%w: text after the JSON object", ErrBadPayload)
	}
	if raw.Status == nil {
		return Payload{}, fmt.Errorf("%w: status: missing", ErrBadPayload)
	}
	st, err := EvaluatorStatus(*raw.Status)
	if err != nil {
		return Payload{}, fmt.Errorf("%w: status: %w", ErrBadPayload, err)
	}
	p := Payload{Status: st}
	if raw.Score = bytes.TrimSpace(raw.Score); len(raw.Score) > 0 && string(raw.Score) != "null" {
		if c := raw.Score[0]; c != '-' && (c < '0' || c > '9') {
			return Payload{}, fmt.Errorf("%w: score: want a number", ErrBadPayload)
		}
		f, err := strconv.ParseFloat(string(raw.Score), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return Payload{}, fmt.Errorf("%w: score: %v", ErrBadPayload, err)
		}
		p.Score = roundScore(f)
	}
	if d := bytes.TrimSpace(raw.Details); len(d) > 0 && !bytes.Equal(d, []byte("null")) {
		if d[0] != '{' {
			return Payload{}, fmt.Errorf("%w: details: want an object", ErrBadPayload)
		}
		p.Details = d
	}
	return p, nil
}

// roundScore rounds f to an integer within ±2^53.
func roundScore(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= maxExactScore:
		return maxExactScore
	case f <= -maxExactScore:
		return -maxExactScore
	}
	return int64(math.Round(f))
}

// ScoreNote says why a result's score deserves a second look, "" when it is
// within 0..MaxScore: an evaluator's score above the full score, or below
// zero, is kept as given (Neuro OJ's judge passes it on), not clamped.
func ScoreNote(score int64) string {
	switch {
	case score > MaxScore:
		return fmt.Sprintf("above the full score of %d.%02d: the evaluator's score, kept as given", MaxScore/100, MaxScore%100)
	case score < 0:
		return "below zero: the evaluator's score, kept as given"
	}
	return ""
}
