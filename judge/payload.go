package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// MaxScore is the top of the score range (100.00 points in hundredths).
const MaxScore = 10000

// ErrBadPayload: the line after the marker is not a valid result object.
var ErrBadPayload = errors.New("unparsable result payload")

// Payload is the evaluator's own result line.
type Payload struct {
	Status  Status
	Score   int64 // clamped to 0..MaxScore
	Details json.RawMessage
}

// ParsePayload decodes `{"status": S, "score": N, "details": {...}}`. The
// status must be one of the enum; the score may be any JSON number (a
// fraction is rounded) and is clamped to 0..MaxScore; details, if present,
// must be an object. Errors wrap ErrBadPayload.
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
	st, err := ParseStatus(*raw.Status)
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
		p.Score = clampScore(f)
	}
	if d := bytes.TrimSpace(raw.Details); len(d) > 0 && !bytes.Equal(d, []byte("null")) {
		if d[0] != '{' {
			return Payload{}, fmt.Errorf("%w: details: want an object", ErrBadPayload)
		}
		p.Details = d
	}
	return p, nil
}

func clampScore(f float64) int64 {
	switch {
	case math.IsNaN(f) || f <= 0:
		return 0
	case f >= MaxScore:
		return MaxScore
	}
	return int64(math.Round(f))
}
